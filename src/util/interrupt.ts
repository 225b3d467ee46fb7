/**
 * Ctrl-C and SIGTERM for a long command (export, sync, watch): an AbortSignal
 * aborted on the first of them with the error to report (exit 130). A repeat
 * (conf re-raises after its cleanup) is absorbed by the process control.
 */
import { InterruptedError } from '../errors.js';

/** Registers a handler for the first SIGINT or SIGTERM (ProcessControl's onceSignal). */
export type OnceSignal = (signal: 'SIGINT' | 'SIGTERM', fn: () => void) => void;

/** Aborts on the first SIGINT or SIGTERM; `after` follows "interrupted by SIGINT" in the message (e.g. what was kept). */
export function interruptSignal(onceSignal: OnceSignal | undefined, after = ''): AbortSignal {
  const controller = new AbortController();
  const on = (signal: 'SIGINT' | 'SIGTERM') => (): void => controller.abort(new InterruptedError(`interrupted by ${signal}${after}`));
  onceSignal?.('SIGINT', on('SIGINT'));
  onceSignal?.('SIGTERM', on('SIGTERM'));
  return controller.signal;
}

/**
 * Ctrl-C, SIGTERM and SIGHUP (the terminal closed, an ssh connection dropped)
 * for a long command (export, sync, watch): an AbortSignal aborted on the
 * first of them with the error to report (exit 130), so what it keeps is
 * saved as for Ctrl-C. A repeat (conf re-raises after its cleanup) is absorbed
 * by the process control.
 */
import { InterruptedError } from '../errors.js';

/** Registers a handler for the first SIGINT, SIGTERM or SIGHUP (ProcessControl's onceSignal). */
export type OnceSignal = (signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', fn: () => void) => void;

/** Aborts on the first SIGINT, SIGTERM or SIGHUP; `after` follows "interrupted by SIGINT" in the message (e.g. what was kept). */
export function interruptSignal(onceSignal: OnceSignal | undefined, after = '', signals: readonly ('SIGINT' | 'SIGTERM' | 'SIGHUP')[] = ['SIGINT', 'SIGTERM', 'SIGHUP']): AbortSignal {
  const controller = new AbortController();
  const on = (signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP') => (): void => controller.abort(new InterruptedError(`interrupted by ${signal}${after}`));
  for (const signal of signals) onceSignal?.(signal, on(signal));
  return controller.signal;
}

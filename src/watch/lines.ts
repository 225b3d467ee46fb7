/**
 * How the watch writes its lines and waits between polls: a batch of lines
 * at once, the state it changes applied only once standard output took it,
 * and a wait that Ctrl-C cuts short.
 */
import { InterruptedError } from '../errors.js';
import { drained } from '../output/drain.js';
import type { OutStream } from '../output/io.js';
import { terminalJson } from '../output/json-text.js';
import type { WatchState } from './state.js';

/** Where lines go, and what to do when standard output turns out closed. */
export interface LineSink {
  readonly out: OutStream;
  readonly state: WatchState;
  readonly signal: AbortSignal;
  /** Saves the state (synchronous, so it is done before a closed pipe ends the process). */
  readonly save: (state: WatchState) => void;
  /** Called at once, synchronously, when standard output turns out closed. */
  readonly onClosed?: () => void;
}

/** Standard output was closed by its reader: the watch ends quietly. */
export class OutputClosed extends Error {}

/**
 * Writes the lines (NDJSON, escaped for a terminal) at once and, once standard output took them, applies what
 * they change in the state. A stream that reports a closed pipe (EPIPE) at
 * once stops the watch with the state as it was before these lines. (Node's
 * process.stdout reports it a moment later, as an event on which
 * src/cli/main.ts exits 0: the cursor file then holds the last poll done.)
 */
export async function writeLines(o: LineSink, lines: readonly string[], apply: readonly (() => void)[]): Promise<void> {
  if (lines.length > 0) {
    o.signal.throwIfAborted();
    // NDJSON: on a terminal, what would act on it as \uXXXX escapes (the same JSON), as -o ndjson writes it there.
    const text = lines.join('');
    const ok = o.out.write(o.out.isTTY ? terminalJson(text) : text);
    if (isClosed(o.out)) closed(o);
    if (!ok) {
      try {
        await drained(o.out, 'standard output', o.signal);
      } catch (err) {
        if (isClosed(o.out)) closed(o);
        throw err;
      }
    }
  }
  for (const f of apply) f();
}

/** Saves the state before these lines and ends the watch, all before a closed pipe's error event can end the process. */
function closed(o: LineSink): never {
  o.save(o.state);
  o.onClosed?.();
  throw new OutputClosed();
}

function isClosed(out: OutStream): boolean {
  const err = out.writableErrored as NodeJS.ErrnoException | undefined;
  return err?.code === 'EPIPE' || (out.destroyed === true && !err);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new InterruptedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

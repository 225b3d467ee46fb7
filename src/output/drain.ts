import type { OutStream } from './io.js';
import { untilAborted } from '../util/abortable.js';
import { writeFailed } from '../util/io-error.js';

/**
 * Resolves once `out` has taken what it buffered, after a write that returned
 * false: `if (!out.write(text)) await drained(out)`. Streamed output then
 * goes at the pace of whoever reads the pipe instead of piling up in memory
 * (pipes are asynchronous on macOS and Windows). Rejects, naming `what` and
 * the reason, when the stream failed or closed instead (a full disk behind
 * standard output): a write that can never drain must not wait forever; and
 * rejects with `signal`'s reason when it aborts (Ctrl-C while nobody reads).
 * A stream that cannot tell resolves at once.
 */
export function drained(out: OutStream, what = 'standard output', signal?: AbortSignal): Promise<void> {
  return untilAborted(drainedOnly(out, what), signal);
}

function drainedOnly(out: OutStream, what: string): Promise<void> {
  if (out.writableErrored) return Promise.reject(writeFailed(what, out.writableErrored));
  if (out.destroyed) return Promise.reject(writeFailed(what, new Error('the stream is closed')));
  const { once, removeListener } = out;
  if (!once) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onDrain = (): void => settle();
    const onError = (err?: unknown): void => settle(err ?? new Error('write failed'));
    const onClose = (): void => settle(out.writableErrored ?? new Error('the stream closed before it drained'));
    function settle(err?: unknown): void {
      removeListener?.call(out, 'drain', onDrain);
      removeListener?.call(out, 'error', onError);
      removeListener?.call(out, 'close', onClose);
      if (err === undefined) resolve();
      else reject(writeFailed(what, err));
    }
    once.call(out, 'drain', onDrain);
    once.call(out, 'error', onError);
    once.call(out, 'close', onClose);
  });
}

/**
 * Waiting that an abort (Ctrl-C, SIGTERM) cuts short: the wait rejects with
 * the signal's reason at once, even when what it waits for never settles (a
 * stalled server, a pipe nobody reads). What was awaited carries on unwatched.
 */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A fixed number of workers taking items in order from one source (an array
 * or a stream of pages), each finishing its item before taking the next.
 * `stopped` is asked before every take: once it says so (Ctrl-C), no item is
 * started, and the items in hand finish. An unexpected error in one worker
 * stops the others from starting more; it is thrown once all have ended.
 */
export async function runPool<T>(
  items: Iterable<T> | AsyncIterable<T>,
  concurrency: number,
  work: (item: T) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  const it: AsyncIterator<T> | Iterator<T> = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  let failed: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failed && !stopped()) {
      const next = await it.next();
      // A stop that came while the next item was fetched: it is not started.
      if (next.done || stopped()) return;
      try {
        await work(next.value);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker().catch((err: unknown) => void (failed ??= { err }))));
  if (failed) throw failed.err;
}

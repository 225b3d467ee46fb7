/**
 * Fetching several ID ranges in parallel and handing their pages over in ID
 * order. Each range buffers at most `depth` pages ahead of the writer, so
 * memory stays bounded by ranges × depth × page size, not by the export.
 */

interface Channel<T> {
  readonly items: T[];
  done: boolean;
  error?: unknown;
  /** Wakes the consumer waiting for an item. */
  wakeConsumer?: () => void;
  /** Wakes the producer waiting for room. */
  wakeProducer?: () => void;
}

/** One producer per range: the pages of that range, in order. */
export type Producer<T> = (signal: AbortSignal) => AsyncIterable<T>;

async function pump<T>(ch: Channel<T>, produce: Producer<T>, depth: number, signal: AbortSignal): Promise<void> {
  try {
    for await (const item of produce(signal)) {
      while (ch.items.length >= depth && !signal.aborted) await new Promise<void>((r) => (ch.wakeProducer = r));
      if (signal.aborted) return;
      ch.items.push(item);
      ch.wakeConsumer?.();
    }
  } catch (err) {
    ch.error = err;
  } finally {
    ch.done = true;
    ch.wakeConsumer?.();
  }
}

/**
 * Runs every producer at once and yields their items range after range.
 * Leaving the loop early (an error, or the caller stopping) aborts the
 * producers that are still running; a producer's error surfaces when the
 * writer reaches its range, after every earlier range is written.
 */
export async function* inOrder<T>(producers: readonly Producer<T>[], depth: number, outer?: AbortSignal): AsyncGenerator<{ index: number; item: T }> {
  const controller = new AbortController();
  const stop = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', stop, { once: true });
  const channels: Channel<T>[] = producers.map(() => ({ items: [], done: false }));
  const running = producers.map((p, i) => pump(channels[i] as Channel<T>, p, depth, controller.signal));
  try {
    for (const [index, ch] of channels.entries()) {
      for (;;) {
        const item = ch.items.shift();
        if (item !== undefined) {
          ch.wakeProducer?.();
          yield { index, item };
          continue;
        }
        if (ch.done) {
          if (ch.error !== undefined) throw ch.error;
          break;
        }
        await new Promise<void>((r) => (ch.wakeConsumer = r));
      }
    }
  } finally {
    outer?.removeEventListener('abort', stop);
    if (!controller.signal.aborted) controller.abort(new Error('export stopped'));
    for (const ch of channels) ch.wakeProducer?.();
    // Requests in flight finish on their own; their pages are dropped (pump never throws).
    void Promise.allSettled(running);
  }
}

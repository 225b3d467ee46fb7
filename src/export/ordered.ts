/**
 * Fetching a sequence of parts in parallel and handing their items over in
 * order. Parts come from `next()` one at a time; at most `running` are
 * fetching at once, at most `window` are started and not yet written, and
 * each buffers at most `depth` items ahead of the writer. Memory is bounded
 * by window × depth items, whatever the size of the whole.
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

/** One part: its items, in order. */
export type Producer<T> = (signal: AbortSignal) => AsyncIterable<T>;

export interface OrderedOptions {
  /** Parts fetching at once. */
  readonly running: number;
  /** Parts started and not yet fully handed over (at least `running`). */
  readonly window: number;
  /** Items a part may hold ahead of the writer. */
  readonly depth: number;
  readonly signal?: AbortSignal;
}

/**
 * Runs one part into its channel. A part stopped by the abort ends with the
 * abort's reason as its error, never as finished: a part cut short must not
 * pass for a part with nothing more in it.
 */
async function pump<T>(ch: Channel<T>, produce: Producer<T>, depth: number, signal: AbortSignal): Promise<void> {
  try {
    for await (const item of produce(signal)) {
      while (ch.items.length >= depth && !signal.aborted) await new Promise<void>((r) => (ch.wakeProducer = r));
      signal.throwIfAborted();
      ch.items.push(item);
      ch.wakeConsumer?.();
    }
    signal.throwIfAborted();
  } catch (err) {
    ch.error = signal.aborted ? signal.reason : err;
  } finally {
    ch.done = true;
    ch.wakeConsumer?.();
  }
}

/**
 * Runs the parts `next()` gives (undefined: no more) and yields their items
 * part after part. Leaving the loop early (an error, or the caller stopping)
 * aborts the parts still running; a part's error surfaces when the writer
 * reaches it, after every earlier part is written. Once `opts.signal` aborts,
 * nothing more is yielded: the generator throws the abort's reason, even
 * when later parts hold items already (they would follow a gap).
 */
export async function* inOrder<T>(next: () => Producer<T> | undefined, opts: OrderedOptions): AsyncGenerator<T> {
  const controller = new AbortController();
  const outer = opts.signal;
  const stop = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) stop();
  else outer?.addEventListener('abort', stop, { once: true });
  const queue: Channel<T>[] = [];
  const running = new Set<Promise<void>>();
  let fetching = 0;
  let exhausted = false;
  const startMore = (): void => {
    while (!exhausted && !controller.signal.aborted && fetching < opts.running && queue.length < Math.max(opts.window, opts.running)) {
      const produce = next();
      if (!produce) {
        exhausted = true;
        break;
      }
      const ch: Channel<T> = { items: [], done: false };
      queue.push(ch);
      fetching++;
      const done: Promise<void> = pump(ch, produce, opts.depth, controller.signal).finally(() => {
        fetching--;
        running.delete(done);
        startMore();
      });
      running.add(done);
    }
  };
  try {
    for (;;) {
      controller.signal.throwIfAborted();
      startMore();
      const ch = queue[0];
      if (!ch) return;
      const item = ch.items.shift();
      if (item !== undefined) {
        ch.wakeProducer?.();
        yield item;
        continue;
      }
      if (ch.done) {
        if (ch.error !== undefined) throw ch.error;
        queue.shift();
        continue;
      }
      await new Promise<void>((r) => (ch.wakeConsumer = r));
    }
  } finally {
    outer?.removeEventListener('abort', stop);
    if (!controller.signal.aborted) controller.abort(new Error('export stopped'));
    for (const ch of queue) ch.wakeProducer?.();
    // Requests in flight are stopped by the abort (FetchRows takes the part's signal); their items are dropped
    // (pump never throws).
    void Promise.allSettled(running);
  }
}

/**
 * An answer's body as the client hands it out. Every read goes through one
 * iterator, which:
 * - turns a failure while the body streams in (the connection dropped, the
 *   server went quiet) into a NetworkError naming the request, so an export
 *   can ask that page again; the caller's own abort stays its reason;
 * - bounds how long the body may take. The transports' idle timeout (no byte
 *   for --timeout) is defeated by a server that trickles a byte now and then,
 *   so the time svc spends waiting for the body must also stay within
 *   --timeout plus one second per KB that arrived: once its first --timeout
 *   has passed, a body must keep up an average of 1 KB/s. Time svc spends
 *   with what it read (writing it out, a slow pipe downstream) does not count.
 *   A page of a few MB at any real speed is far inside that; a trickle ends
 *   about one --timeout after it starts.
 */
import { SvcError } from '../errors.js';
import { MAX_TIMER_MS } from '../util/duration.js';
import { networkError } from './errors.js';
import { DUMP_LIMIT, TIMEOUT_CODES, TransportTimeoutError, type ResponseBody } from './transport.js';

/** The slowest average a body may arrive at once its first --timeout has passed (bytes a second). */
export const MIN_BODY_RATE = 1024;

/** What the body knows of its request. */
export interface BodyRequest {
  readonly method: string;
  /** The URL as messages show it (redacted). */
  readonly shown: string;
  /** --timeout (ms). */
  readonly timeoutMs: number;
  /** The caller's signal: when it aborts, its reason is the error. */
  readonly signal?: AbortSignal | undefined;
  /** Stops this try's transfer (the transport's signal follows it): aborted with the error when the body is too slow. */
  readonly cut: AbortController;
  /** The transport's signal (the caller's, the request's deadline, `cut`): when aborted, its reason is the error. */
  readonly stopped: AbortSignal;
}

/** A body read through the client: see the top of this file. */
export interface GuardedBody extends ResponseBody {
  /** Bytes that arrived so far. */
  readonly received: number;
  /**
   * The first `max` bytes as text; the rest is not read (the connection is
   * closed). A failure part way keeps what arrived; only the caller's abort
   * is thrown.
   */
  head(max: number): Promise<string>;
}

/** Wraps a transport's body for one request. */
export function guardBody(body: ResponseBody, req: BodyRequest): GuardedBody {
  let received = 0;
  /** Time spent waiting for the body, and when the wait under way began. */
  let waited = 0;
  let since: number | undefined;
  const allowance = (): number => req.timeoutMs + (received * 1000) / MIN_BODY_RATE - waited;

  const failure = (err: unknown): unknown => {
    if (req.signal?.aborted) return req.signal.reason;
    const cause = req.stopped.aborted ? req.stopped.reason : err;
    const code = (cause as { code?: unknown } | null)?.code;
    return cause instanceof SvcError || typeof code !== 'string' ? cause : networkError(cause, req.method, req.shown);
  };

  /** Stops the transfer: too slow. */
  const tooSlow = (): TransportTimeoutError => {
    const spent = waited + (since === undefined ? 0 : performance.now() - since);
    const err = new TransportTimeoutError(
      TIMEOUT_CODES.slow,
      `the answer arrived too slowly (${received.toLocaleString('en-US')} bytes in ${(spent / 1000).toFixed(1)} s, under ${MIN_BODY_RATE / 1024} KB/s once --timeout had passed)`,
    );
    if (!req.cut.signal.aborted) req.cut.abort(err);
    return err;
  };

  async function* chunks(): AsyncGenerator<Buffer> {
    const it = body[Symbol.asyncIterator]();
    let ended = false;
    try {
      for (;;) {
        const t0 = performance.now();
        since = t0;
        const timer = setTimeout(tooSlow, Math.min(Math.max(0, allowance()), MAX_TIMER_MS));
        let next: IteratorResult<Buffer>;
        try {
          next = await it.next();
        } finally {
          clearTimeout(timer);
          since = undefined;
          waited += performance.now() - t0;
        }
        if (next.done) {
          ended = true;
          return;
        }
        received += next.value.length;
        if (allowance() < 0) throw tooSlow();
        yield next.value;
      }
    } catch (err) {
      ended = true;
      throw failure(err);
    } finally {
      // Left early (a reader that stopped, head(), dump()): the rest is not wanted; this closes the connection.
      if (!ended) await it.return?.();
    }
  }

  return {
    get received() {
      return received;
    },
    [Symbol.asyncIterator]: chunks,
    async text() {
      const parts: Buffer[] = [];
      for await (const chunk of chunks()) parts.push(chunk);
      return Buffer.concat(parts).toString('utf8');
    },
    async head(max) {
      const parts: Buffer[] = [];
      let n = 0;
      try {
        for await (const chunk of chunks()) {
          parts.push(chunk);
          if ((n += chunk.length) >= max) break;
        }
      } catch {
        if (req.signal?.aborted) throw req.signal.reason;
      }
      return Buffer.concat(parts).subarray(0, max).toString('utf8');
    },
    async dump() {
      let n = 0;
      try {
        for await (const chunk of chunks()) if ((n += chunk.length) > DUMP_LIMIT) break;
      } catch {
        // Nothing of it was wanted.
      }
    },
  };
}

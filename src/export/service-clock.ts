/**
 * The service's clock as its records carry it: the newest `lastmodified`.
 * A pass that must not miss a change made behind it (a first sync, a
 * watch's snapshot) takes it as it begins: every later change is stamped at
 * or after it (`--lag` covers the service's own skew), whatever this machine's
 * clock says.
 */
import type { FetchRows } from './pager.js';

/** How far ahead of this machine's clock a stamp is said to be in the future (a warning); less is taken as clock skew. */
export const FUTURE_SECONDS = 86_400;

/**
 * The newest lastmodified the service has for the family, undefined when it
 * has no record. A stamp ahead of this machine's clock (`nowSeconds`) is
 * never a cursor: one record imported with a stamp hours ahead would put
 * every change made meanwhile below it, for good. This machine's clock is
 * answered then, which `--lag` covers while the two clocks differ by less
 * than it (a lower cursor only fetches more); a stamp more than
 * FUTURE_SECONDS ahead is named in a warning.
 */
export async function newestStamp(fetch: FetchRows, nowSeconds: number, warn: (message: string) => void, signal?: AbortSignal): Promise<number | undefined> {
  const rows = await fetch({ sort: ['-lastmodified'], limit: 1, fields: { lastmodified: 'lastmodified' } }, undefined, signal);
  const v = rows[0]?.lastmodified;
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  if (v <= nowSeconds) return v;
  if (v > nowSeconds + FUTURE_SECONDS) warn(`a record was changed in the future (lastmodified ${v}); the cursor is kept at this machine's clock`);
  return nowSeconds;
}

/**
 * This machine's clock (Unix seconds) as stamps are checked against it: read
 * again only for a stamp above the last reading (one made during the pass, or
 * a service clock ahead), not once a record.
 */
export function localClock(read: () => number): { ahead(stamp: number): boolean; readonly now: number } {
  let now = read();
  return {
    ahead(stamp) {
      if (stamp > now) now = read();
      return stamp > now;
    },
    get now() {
      return now;
    },
  };
}

/**
 * The cursor after a scan of the records changed since the last one (a later
 * sync, a watch's later poll), without a request of its own for the service's
 * newest stamp (lastmodified is not indexed: that costs a scan of its own).
 *
 * A change made behind the scan, after it passed the record, is stamped at or
 * after the service's time when the scan began (S). A page received t seconds
 * after the scan began (this machine's measure, on a clock that is never
 * stepped, rounded up) holds records stamped at the latest S + t. So every
 * stamp less the time to its page is at or before S, and the cursor is the
 * highest of these: the next scan, from it less `--lag`, asks for that change
 * however long this one took and whatever the lag. A stamp in an early page
 * is set back by little, so a long scan does not push the cursor far below S.
 *
 * The cursor never moves back (each is at or before its scan's S); nothing
 * seen, or a clock that went backwards (which would make a measure too
 * short), leaves it where it was.
 */
export class ScanCursor {
  private readonly started: number;
  private last: number;
  private elapsed = 0;
  private best: number | undefined;
  private broken = false;

  constructor(private readonly monotonic: () => number) {
    this.started = monotonic();
    this.last = this.started;
  }

  /** Reads the clock as a page's records are taken; answers what takes their stamps. */
  page(): (stamp: number) => void {
    const now = this.monotonic();
    if (!(now >= this.last)) this.broken = true;
    else {
      this.last = now;
      this.elapsed = Math.ceil((now - this.started) / 1000);
    }
    const elapsed = this.elapsed;
    return (stamp) => {
      const c = stamp - elapsed;
      if (this.best === undefined || c > this.best) this.best = c;
    };
  }

  /** The cursor after the scan, from the one before it. */
  cursor(before: number | null): number | null {
    if (this.broken || this.best === undefined) return before;
    return before === null || this.best > before ? this.best : before;
  }
}

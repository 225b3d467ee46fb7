/**
 * The service's clock as its records carry it: the newest `lastmodified`.
 * A pass that must not miss a change made behind it (a first sync, a
 * watch's snapshot) takes it as it begins: every later change is stamped at
 * or after it (`--lag` covers the service's own skew), whatever this machine's
 * clock says.
 */
import type { FetchRows } from './pager.js';

/** How far a service stamp may be ahead of this machine's clock and still be taken as the service's time (clock skew). */
export const FUTURE_SECONDS = 86_400;

/**
 * The newest lastmodified the service has for the family, undefined when it
 * has no record. A record stamped far in the future (an import, a clock jump
 * on the service) would put every later change below the cursor: then this
 * machine's clock (`nowSeconds`) is answered instead, with a warning (a lower
 * cursor only fetches more).
 */
export async function newestStamp(fetch: FetchRows, nowSeconds: number, warn: (message: string) => void, signal?: AbortSignal): Promise<number | undefined> {
  const rows = await fetch({ sort: ['-lastmodified'], limit: 1, fields: { lastmodified: 'lastmodified' } }, undefined, signal);
  const v = rows[0]?.lastmodified;
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  if (v <= nowSeconds + FUTURE_SECONDS) return v;
  warn(`a record was changed in the future (lastmodified ${v}); the cursor is kept at this machine's clock`);
  return nowSeconds;
}

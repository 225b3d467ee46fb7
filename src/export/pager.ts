/**
 * Keyset paging over one ID range: sorted by +ID, each page asks for IDs above
 * the last one seen, so records present for the whole run come exactly once
 * while others are inserted or deleted. A page that keeps failing with a
 * server error (after the client's own retries) is asked again, smaller, down
 * to one record; it is never skipped.
 */
import { HttpStatusError, NetworkError } from '../http/errors.js';
import type { Row } from '../output/view.js';
import type { IdRange } from './plan.js';

/** Sends one query body and answers with its records. */
export type FetchRows = (body: Record<string, unknown>) => Promise<Row[]>;

/** The query parts every page shares. */
export interface PageQuery {
  readonly filterMember: 'filter' | 'filters';
  readonly filter?: Record<string, unknown>;
  readonly search?: string;
  /** The `fields` member, with the ID included (see idSelection). */
  readonly fields?: readonly string[] | Readonly<Record<string, string>>;
  /** The key the ID has in a record. */
  readonly idKey: string;
}

export interface Page {
  readonly rows: Row[];
  /** The highest ID in the page. */
  readonly last: number;
}

export interface PagerOptions {
  readonly pageSize: number;
  readonly signal: AbortSignal;
  /** Told when a page is asked again with a smaller size. */
  readonly onShrink?: (size: number, err: unknown) => void;
}

/** How often a one-record page may fail before the export gives up. */
const FAILURES_AT_ONE = 3;
/** Successful pages at a reduced size before trying a larger one again. */
const GROW_AFTER = 4;

/** Whether a failure is the server's or the network's (worth asking again smaller), not the request's. */
export function isServerFailure(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  return err instanceof HttpStatusError && (err.status >= 500 || err.status === 429);
}

/** The body of one page: the range, above `after`, sorted by ID. */
export function pageBody(q: PageQuery, range: IdRange, after: number, limit: number): Record<string, unknown> {
  const ids: Record<string, number> = { '>': after };
  if (range.upTo !== null) ids['<='] = range.upTo;
  const filter = q.filter ? { 0: ['AND', q.filter, { ID: ids }] } : { ID: ids };
  const body: Record<string, unknown> = { [q.filterMember]: filter, sort: ['+ID'], limit };
  if (q.fields) body.fields = q.fields;
  if (q.search) body.query = q.search;
  return body;
}

/** Every page of a range, starting above `from` (the last ID already written, or the range's start). */
export async function* pagesOf(fetch: FetchRows, q: PageQuery, range: IdRange, from: number, opts: PagerOptions): AsyncGenerator<Page> {
  let after = from;
  let size = opts.pageSize;
  let failuresAtOne = 0;
  let streak = 0;
  for (;;) {
    opts.signal.throwIfAborted();
    let rows: Row[];
    try {
      rows = await fetch(pageBody(q, range, after, size));
    } catch (err) {
      if (opts.signal.aborted) throw opts.signal.reason;
      if (!isServerFailure(err) || (size === 1 && ++failuresAtOne >= FAILURES_AT_ONE)) throw err;
      size = Math.max(1, Math.floor(size / 2));
      streak = 0;
      opts.onShrink?.(size, err);
      continue;
    }
    if (rows.length > 0) {
      const last = Number(rows[rows.length - 1]?.[q.idKey]);
      if (!Number.isFinite(last) || last <= after) throw new Error(`the service answered a page out of ID order (after ${after})`);
      yield { rows, last };
      after = last;
    }
    if (rows.length < size || (range.upTo !== null && after >= range.upTo)) return;
    if (size < opts.pageSize && ++streak >= GROW_AFTER) {
      size = Math.min(opts.pageSize, size * 2);
      streak = 0;
    }
  }
}

/**
 * The `fields` member to send so every record carries its ID, the key it has,
 * and whether the ID is to be left out of the output (the user did not ask for it).
 */
export function idSelection(fields: PageQuery['fields']): { fields?: PageQuery['fields']; idKey: string; strip: boolean } {
  if (!fields) return { idKey: 'ID', strip: false };
  if (Array.isArray(fields)) {
    const list = fields as readonly string[];
    return list.includes('ID') ? { fields: list, idKey: 'ID', strip: false } : { fields: [...list, 'ID'], idKey: 'ID', strip: true };
  }
  const map = fields as Readonly<Record<string, string>>;
  const alias = Object.entries(map).find(([, path]) => path === 'ID')?.[0];
  if (alias) return { fields: map, idKey: alias, strip: false };
  const key = 'ID' in map ? '__svc_id' : 'ID';
  return { fields: { ...map, [key]: 'ID' }, idKey: key, strip: true };
}

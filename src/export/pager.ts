/**
 * Keyset paging over one ID range: sorted by +ID, each page asks for IDs above
 * the last one seen, so records present for the whole run come exactly once
 * while others are inserted or deleted. A page that keeps failing with a
 * server error (after the client's own retries) is asked again, smaller, down
 * to one record; it is never skipped. A service that cannot be reached at all
 * (connection refused, no such host) fails the page at once.
 */
import { SvcError } from '../errors.js';
import { HttpStatusError, NetworkError } from '../http/errors.js';
import type { Row } from '../output/view.js';
import { pageFilter, stuckPaging } from '../records/page-filter.js';
import type { IdRange } from './plan.js';

/** Sends one query body and answers with its records, each turned by `each` as it arrives. */
/** Sends a query body and answers its records (each made into a T as it arrives); `signal` stops that one request. */
export type FetchRows = <T = Row>(body: Record<string, unknown>, each?: (row: Row) => T, signal?: AbortSignal) => Promise<T[]>;

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

/** What a page's records are made into, record by record as they arrive (a new one for every request). */
export interface Digest<T> {
  add(row: Row): void;
  finish(): T;
}

/** A page as the caller keeps it: what its digest made of the records, how many there were, the highest ID. */
export interface Page<T> {
  readonly item: T;
  readonly count: number;
  readonly last: number;
  /** The records the page was asked for (less than the page size while failures have halved it): fewer came, it was the last. */
  readonly limit: number;
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

/** Whether a failure is the server's or the network's (worth asking again, later or smaller), not the request's. */
export function isServerFailure(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  return err instanceof HttpStatusError && (err.status >= 500 || err.status === 429);
}

/**
 * Failures before any request reached the service (refused, no route, no such host, a connection or TLS
 * handshake that failed or timed out): the page's size has nothing to do with them.
 */
const BEFORE_THE_REQUEST = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL', 'SVC_CONNECT_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether a page that failed so is worth asking again smaller: a server failure (5xx, 429, a timeout, a
 * connection cut during the answer, an answer cut short), not a service svc could not reach at all (asked
 * again at every size down to one record, that only delays the error).
 */
export function smallerMayHelp(err: unknown): boolean {
  if (!isServerFailure(err)) return false;
  if (!(err instanceof NetworkError) || err.code === undefined) return true;
  return !BEFORE_THE_REQUEST.has(err.code) && !/CERT|TLS|SSL/.test(err.code);
}

/** The body of one page: the range, above `after`, sorted by ID. */
export function pageBody(q: PageQuery, range: IdRange, after: number, limit: number): Record<string, unknown> {
  // The range joins the filter without a new level: any filter the service takes for a count pages too.
  const filter = pageFilter(q.filter, after, range.upTo);
  const body: Record<string, unknown> = { [q.filterMember]: filter, sort: ['+ID'], limit };
  if (q.fields) body.fields = q.fields;
  if (q.search) body.query = q.search;
  return body;
}

/**
 * One page, each record handed to the digest as it arrives: the parsed
 * records die young, which keeps the garbage collector's old generation, and
 * so memory, flat. IDs must rise through the page.
 */
async function fetchPage<T>(fetch: FetchRows, body: Record<string, unknown>, q: PageQuery, after: number, limit: number, digest: Digest<T>, signal: AbortSignal): Promise<Page<T>> {
  let last = after;
  let count = 0;
  await fetch(
    body,
    (row) => {
      const value = row[q.idKey];
      const id = Number(value);
      const stuck = stuckPaging(value, id, last, after);
      if (stuck) throw new SvcError(stuck);
      last = id;
      count++;
      digest.add(row);
    },
    signal,
  );
  return { item: digest.finish(), count, last, limit };
}

/** Every page of a range with records, starting above `from` (the last ID already written, or the range's start). */
export async function* pagesOf<T>(fetch: FetchRows, q: PageQuery, range: IdRange, from: number, opts: PagerOptions, newDigest: () => Digest<T>): AsyncGenerator<Page<T>> {
  let after = from;
  let size = opts.pageSize;
  let failuresAtOne = 0;
  let streak = 0;
  for (;;) {
    opts.signal.throwIfAborted();
    let page: Page<T>;
    try {
      page = await fetchPage(fetch, pageBody(q, range, after, size), q, after, size, newDigest(), opts.signal);
    } catch (err) {
      if (opts.signal.aborted) throw opts.signal.reason;
      if (!smallerMayHelp(err) || (size === 1 && ++failuresAtOne >= FAILURES_AT_ONE)) throw err;
      size = Math.max(1, Math.floor(size / 2));
      streak = 0;
      opts.onShrink?.(size, err);
      continue;
    }
    const { count } = page;
    if (count > 0) {
      yield page;
      after = page.last;
    }
    if (count < size || (range.upTo !== null && after >= range.upTo)) return;
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
  // Sent in the object form (alias → path) the service's api.json types, whatever form it came in.
  const map: Readonly<Record<string, string>> = Array.isArray(fields)
    ? Object.fromEntries((fields as readonly string[]).map((path) => [path, path]))
    : (fields as Readonly<Record<string, string>>);
  const alias = Object.entries(map).find(([, path]) => path === 'ID')?.[0];
  if (alias) return { fields: map, idKey: alias, strip: false };
  const key = 'ID' in map ? '__svc_id' : 'ID';
  return { fields: { ...map, [key]: 'ID' }, idKey: key, strip: true };
}

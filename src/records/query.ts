/**
 * The query operation: a POST of a query body on the family's collection,
 * safe to repeat. The one place svc builds that request (query, count, sum,
 * export and --all all send it from here).
 */
import type { ResourceFamily } from '../catalogue/index.js';
import { SvcError } from '../errors.js';
import { withoutKey } from '../export/encode.js';
import { idSelection, type FetchRows, type PageQuery } from '../export/pager.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import type { Row } from '../output/view.js';
import { pageFilter, stuckPaging } from './page-filter.js';

/** Sends a query body; the answer is read by the caller (a stream for exports). */
export function queryRequest(client: HttpClient, family: ResourceFamily, body: Record<string, unknown>, signal?: AbortSignal): Promise<HttpResponse> {
  return client.request({ method: 'POST', root: 'api', path: `/${family.name}`, json: body, idempotent: true, ...(signal ? { signal } : {}) });
}

/** Sends one query body and parses the JSON answer. */
export async function postQuery<T>(client: HttpClient, family: ResourceFamily, body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  return (await queryRequest(client, family, body, signal)).json<T>();
}

/** A query answering records, each turned by `each` as it arrives (see HttpResponse.jsonArray); `signal` stops it (Ctrl-C). */
export async function postQueryEach<T = Row>(client: HttpClient, family: ResourceFamily, body: Record<string, unknown>, each?: (row: Row) => T, signal?: AbortSignal): Promise<T[]> {
  return (await queryRequest(client, family, body, signal)).jsonArray((element) => (each ? each(element as Row) : (element as T)));
}

/** The pages' fetcher of a run (export, sync, watch): each request stops with the run's signal, and with the one its pass gives it. */
export function queryFetcher(client: HttpClient, family: ResourceFamily, signal: AbortSignal): FetchRows {
  return (body, each, stop) => postQueryEach(client, family, body, each, stop ? AbortSignal.any([signal, stop]) : signal);
}

/** A query body and the member its filter goes under. */
export interface KeysetQuery {
  readonly body: Record<string, unknown>;
  readonly filterMember: 'filter' | 'filters';
  readonly filter?: Record<string, unknown>;
}

/** The body of one page of `allPages`: the query's filter AND `ID > after`, sorted +ID, `pageSize` records. */
export function keysetPageBody(q: KeysetQuery, pageSize: number, after = 0): Record<string, unknown> {
  const sel = idSelection(q.body.fields as PageQuery['fields']);
  const body: Record<string, unknown> = { ...q.body, [q.filterMember]: pageFilter(q.filter, after), sort: ['+ID'], limit: pageSize };
  if (sel.fields) body.fields = sel.fields;
  return body;
}

/**
 * Every matching record, page after page by ID (`ID > last`, sorted +ID), so
 * records that exist for the whole run come once each while others change. The
 * ID is fetched even when `fields` leaves it out (and then left out of the
 * records). Each page's IDs must rise above the last one seen: a page that
 * does not move past it (a service ignoring `ID > last`, or IDs past 2^53 that
 * JSON rounds) ends the run with an error before any of its records is
 * written, instead of asking for the same page for ever.
 */
export async function* allPages(client: HttpClient, family: ResourceFamily, q: KeysetQuery, pageSize: number): AsyncGenerator<Row> {
  const sel = idSelection(q.body.fields as PageQuery['fields']);
  let last = 0;
  for (;;) {
    let seen = last;
    const page = await postQueryEach<Row>(client, family, keysetPageBody(q, pageSize, last), (row) => {
      const value = row[sel.idKey];
      const id = Number(value);
      const stuck = stuckPaging(value, id, seen, last);
      if (stuck) throw new SvcError(stuck);
      seen = id;
      return row;
    });
    for (const row of page) yield sel.strip ? withoutKey(row, sel.idKey) : row;
    if (page.length < pageSize) return;
    last = seen;
  }
}

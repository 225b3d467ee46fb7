/**
 * The request of `svc <family> query` and `count`: the query body from the
 * typed options. Shared by both verbs, so it sits at the noun.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { queryBody, type Selected } from '../../records/query-body.js';
import type { KeysetQuery } from '../../records/query.js';
import { buildFilter, filterMemberOf, type FilterOptions } from './filter-flags.js';

/** A page size for the tables people read; pipes get the service's default (1000). */
export const TERMINAL_LIMIT = 50;

/** The query ready to send, and what --all and the truncation notice reuse. */
export interface QueryRequest extends KeysetQuery {
  readonly limit?: number;
}

/** What shapes a query beyond its filter: query's options have it (QueryOptions extends it), count's none. */
export interface QueryShape {
  readonly fields?: readonly Selected[];
  readonly sort?: readonly string[];
  /** --limit; without it, 50 on a terminal and the service's 1000 otherwise. */
  readonly limit?: number;
  readonly offset?: number;
  readonly all: boolean;
  readonly distinct: boolean;
  readonly expand?: readonly string[];
}

/** What a query or a count is built from: the family, the filter options and (for a query) the shape. */
export type QueryRequestOptions = FilterOptions & { readonly family: ResourceFamily } & Partial<QueryShape>;

/** The body of a query (or, for count, of a count) from the options. */
export async function toQueryRequest(opts: QueryRequestOptions, ctx: Context, count: boolean): Promise<QueryRequest> {
  const q: Partial<QueryShape> = count ? {} : opts;
  const limit = q.limit ?? (!q.all && !count && ctx.output().format === 'table' ? TERMINAL_LIMIT : undefined);
  const filter = await buildFilter(opts.family, opts, ctx);
  const filterMember = await filterMemberOf(ctx);
  const body = queryBody({
    filterMember,
    count,
    ...(filter ? { filter } : {}),
    ...(q.fields ? { fields: q.fields } : {}),
    ...(q.sort ? { sort: q.sort } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(q.offset ? { offset: q.offset } : {}),
    ...(opts.search ? { search: opts.search } : {}),
    ...(q.distinct ? { distinct: true } : {}),
    ...(q.expand ? { expand: q.expand } : {}),
  });
  return { body, filterMember, ...(limit !== undefined ? { limit } : {}), ...(filter ? { filter } : {}) };
}

/** The request of `svc <family> query` and `count`: the query body from the typed options. */
import type { Context } from '../../../cli/context.js';
import { queryBody } from '../../../records/query-body.js';
import type { KeysetQuery } from '../../../records/query.js';
import { buildFilter, filterMemberOf, type FilterOptions } from '../filter-flags.js';
import type { QueryOptions } from './command.js';

/** A page size for the tables people read; pipes get the service's default (1000). */
export const TERMINAL_LIMIT = 50;

/** The query ready to send, and what --all and the truncation notice reuse. */
export interface QueryRequest extends KeysetQuery {
  readonly limit?: number;
}

/** The body of a query (or, for count, of a count) from the options. */
export async function toQueryRequest(opts: (QueryOptions | FilterOptions) & { readonly family: QueryOptions['family'] }, ctx: Context, count: boolean): Promise<QueryRequest> {
  const q: Partial<QueryOptions> = count ? {} : (opts as QueryOptions);
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

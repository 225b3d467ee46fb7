/** The request of `svc <family> sum`: a query of only ID, the field and the --by field, paged by ID. */
import type { Context } from '../../../cli/context.js';
import { queryBody } from '../../../records/query-body.js';
import type { KeysetQuery } from '../../../records/query.js';
import { buildFilter, filterMemberOf } from '../filter-flags.js';
import type { SumOptions } from './options.js';

export async function toSumRequest(opts: SumOptions, ctx: Context): Promise<KeysetQuery> {
  const fields = [...new Set(['ID', opts.field.name, ...(opts.by ? [opts.by.name] : [])])];
  const filter = await buildFilter(opts.family, opts, ctx);
  const filterMember = await filterMemberOf(ctx);
  const body = queryBody({
    filterMember,
    fields: fields.map((name) => ({ name, path: name })),
    ...(filter ? { filter } : {}),
    ...(opts.search ? { search: opts.search } : {}),
  });
  return { body, filterMember, ...(filter ? { filter } : {}) };
}

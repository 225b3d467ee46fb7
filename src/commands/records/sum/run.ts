/**
 * `svc <family> sum FIELD [--by FIELD]`: streams every matching record (the
 * keyset paging of query --all, fetching only ID, FIELD and the --by field)
 * and totals exactly with decimal arithmetic. Memory holds one page and one
 * running total per group, whatever the number of records.
 */
import type { Context } from '../../../cli/context.js';
import { allPages, keysetPageBody } from '../../../records/query.js';
import { showRequestInstead } from '../filter-flags.js';
import type { SumOptions } from './options.js';
import { groupsView, totalView } from './render.js';
import { toSumRequest } from './request.js';
import { tally } from './tally.js';

export async function runSum(opts: SumOptions, ctx: Context): Promise<void> {
  const output = ctx.output();
  const req = await toSumRequest(opts, ctx);
  // The body shown is the first page's, as sent.
  if (await showRequestInstead(opts, keysetPageBody(req, opts.pageSize), req.filter, ctx)) return;
  const { client } = await ctx.connect({ token: true });
  const groups = await tally(allPages(client, opts.family, req, opts.pageSize), opts.field.name, opts.by?.name);
  await ctx.emit(opts.by ? groupsView(output, opts.by, groups, opts.tz) : totalView(output, opts.field.name, groups.get(null)));
}

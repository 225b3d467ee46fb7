/**
 * `svc <family> query`: sends the query (one page, or every page by ID with
 * --all) and writes the records as they come; says on stderr when a page held
 * fewer records than match.
 */
import type { Context } from '../../../cli/context.js';
import type { Row } from '../../../output/view.js';
import { allPages, keysetPageBody, postQuery, postQueryEach } from '../../../records/query.js';
import { showRequestInstead } from '../filter-flags.js';
import { toQueryRequest } from '../query-request.js';
import type { QueryOptions } from './options.js';
import { recordsView, truncationNotice } from './render.js';

export async function runQuery(opts: QueryOptions, ctx: Context): Promise<void> {
  const { family } = opts;
  if (opts.listFields) {
    const { describeView } = await import('../../../records/describe-view.js');
    return ctx.emit(describeView(family.name));
  }
  const output = ctx.output();
  const req = await toQueryRequest(opts, ctx, false);
  // With --all, the body shown is the first page's, as sent.
  if (await showRequestInstead(opts, opts.all ? keysetPageBody(req, opts.pageSize) : req.body, req.filter, ctx)) return;
  const { client } = await ctx.connect({ token: true });
  if (opts.all) return ctx.emit(recordsView(family, output, opts.fields, allPages(client, family, req, opts.pageSize), opts.tz));
  // A page of records is a JSON array; anything else is an error that says so.
  const rows = await postQueryEach<Row>(client, family, req.body);
  await ctx.emit(recordsView(family, output, opts.fields, rows, opts.tz));
  if (rows.length < (req.limit ?? 1000)) return;
  const { count } = await postQuery<{ count: number }>(client, family, { ...req.body, count: true });
  const notice = truncationNotice(family, rows.length, count, Number(req.body.offset ?? 0), opts.limit);
  if (notice) ctx.deps.stderr.write(notice);
}

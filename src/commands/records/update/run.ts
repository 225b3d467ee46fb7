/**
 * `svc <family> update ID field=value…`: the body checked, PATCH (If-Match
 * with --if-match), then the updated record. With --filter, every matching
 * record (bulk.ts); with --dry-run, the request instead.
 */
import type { Context } from '../../../cli/context.js';
import { recordView } from '../../../records/record-view.js';
import { buildBody } from '../write-body.js';
import { runByFilter } from '../write-by-filter.js';
import { printDryRun, refuseJqByFilter, refuseJqDryRun } from '../write-dry-run.js';
import { reportWrite, sendWrite } from '../write-send.js';
import { updateOne } from './bulk.js';
import type { UpdateOptions } from './options.js';

export async function runUpdate(opts: UpdateOptions, ctx: Context): Promise<void> {
  const { family, id } = opts;
  // Before the body is read (stdin, a file): these print no JSON.
  if (opts.byFilter) refuseJqByFilter(ctx, family, 'update');
  else if (opts.dryRun) refuseJqDryRun(ctx);
  const body = await buildBody(opts, 'update', ctx);
  if (opts.byFilter) {
    return runByFilter(ctx, {
      verb: 'update',
      family,
      byFilter: opts.byFilter,
      dryRun: opts.dryRun === true,
      goneIsDone: false,
      request: () => ({ method: 'PATCH', json: body }),
      write: (w, r) => updateOne(family, body, w, r),
    });
  }
  const req = { method: 'PATCH', json: body, ifMatch: opts.ifMatch } as const;
  if (opts.dryRun) return printDryRun(ctx, family, id, req);
  ctx.output(); // checks -o before anything is sent
  const { record, etag } = await sendWrite(ctx, family, id, req);
  reportWrite(ctx, `updated ${family.name} ${id}`, etag);
  await ctx.emit(recordView(family, record ?? {}, opts.tz));
}

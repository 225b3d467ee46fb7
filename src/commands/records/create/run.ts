/** `svc <family> create field=value…`: the body checked, PUT, then the created record and its new ID (--dry-run: the request instead). */
import type { Context } from '../../../cli/context.js';
import { recordView } from '../../../records/record-view.js';
import { buildBody } from '../write-body.js';
import { printDryRun, refuseJqDryRun } from '../write-dry-run.js';
import { reportWrite, sendWrite } from '../write-send.js';
import type { CreateOptions } from './options.js';

export async function runCreate(opts: CreateOptions, ctx: Context): Promise<void> {
  const { family } = opts;
  if (opts.dryRun) refuseJqDryRun(ctx); // before the body is read (stdin, a file)
  const body = await buildBody(opts, 'create', ctx);
  if (opts.dryRun) return printDryRun(ctx, family, undefined, { method: 'PUT', json: body });
  ctx.output(); // checks -o before anything is sent
  const { record, etag } = await sendWrite(ctx, family, undefined, { method: 'PUT', json: body });
  const created = record ?? {};
  reportWrite(ctx, `created ${family.name} ${String(created.ID ?? '')}`.trimEnd(), etag);
  await ctx.emit(recordView(family, created, opts.tz));
}

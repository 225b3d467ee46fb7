/** `svc <family> update ID field=value…`: the body checked, PATCH (If-Match with --if-match), then the updated record. */
import type { Context } from '../../../cli/context.js';
import { recordView } from '../../../records/record-view.js';
import { buildBody } from '../write-body.js';
import { reportWrite, sendWrite } from '../write-send.js';
import type { UpdateOptions } from './options.js';

export async function runUpdate(opts: UpdateOptions, ctx: Context): Promise<void> {
  const { family, id } = opts;
  const body = await buildBody(opts, 'update', ctx);
  ctx.output(); // checks -o before anything is sent
  const { record, etag } = await sendWrite(ctx, family, id, { method: 'PATCH', json: body, ifMatch: opts.ifMatch });
  reportWrite(ctx, `updated ${family.name} ${id}`, etag);
  await ctx.emit(recordView(family, record ?? {}));
}

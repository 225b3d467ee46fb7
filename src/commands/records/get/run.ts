/**
 * `svc <family> get ID`: one record, one field per row on a terminal, the
 * record as the service sends it otherwise; with --if-none-match, "unchanged"
 * on stderr (exit 0) when it still has that ETag.
 */
import type { Context } from '../../../cli/context.js';
import type { GetOptions } from './options.js';
import { getView, unchangedNotice } from './render.js';
import { toGetRequest } from './request.js';

export async function runGet(opts: GetOptions, ctx: Context): Promise<void> {
  ctx.output(); // checks -o before anything is sent
  const { client } = await ctx.connect({ token: true });
  const res = await client.request(toGetRequest(opts));
  const etag = String(res.headers.etag ?? '');
  if (ctx.globals.verbose && etag) ctx.deps.stderr.write(`ETag: ${etag}\n`);
  if (res.status === 304) {
    await res.body.dump();
    ctx.deps.stderr.write(unchangedNotice(opts.family, opts.id, etag));
    return;
  }
  const record = await res.json<Record<string, unknown>>();
  await ctx.emit(getView(opts.family, record, opts.tz));
}

/** `svc <family> count`: one count request; the number alone on a terminal, `{"count": n}` as data. */
import type { Context } from '../../../cli/context.js';
import { postQuery } from '../../../records/query.js';
import { showRequestInstead } from '../filter-flags.js';
import { toQueryRequest } from '../query-request.js';
import type { CountOptions } from './options.js';

export async function runCount(opts: CountOptions, ctx: Context): Promise<void> {
  const output = ctx.output();
  const req = await toQueryRequest(opts, ctx, true);
  if (await showRequestInstead(opts, req.body, req.filter, ctx)) return;
  const { client } = await ctx.connect({ token: true });
  const { count } = await postQuery<{ count: number }>(client, opts.family, req.body);
  await ctx.emit(output.format === 'table' ? { kind: 'text', text: `${count}\n` } : { kind: 'object', value: { count }, details: [['count', String(count)]] });
}

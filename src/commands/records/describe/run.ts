/** `svc <family> describe [field]`: the view of `svc describe <family>[.field]`. */
import type { Context } from '../../../cli/context.js';
import type { DescribeOptions } from './options.js';

export async function runDescribe(opts: DescribeOptions, ctx: Context): Promise<void> {
  ctx.output(); // checks -o before the catalogue is looked at
  const { describeView } = await import('../../../records/describe-view.js');
  await ctx.emit(describeView(opts.field ? `${opts.family.name}.${opts.field}` : opts.family.name));
}

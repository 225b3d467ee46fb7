/** `svc describe`: the family's facts and fields, or every fact about one field. */
import type { Context } from '../../cli/context.js';
import { describeFamilyView, describeFieldView } from '../../records/describe-view.js';
import type { DescribeOptions } from './options.js';

export async function runDescribe(opts: DescribeOptions, ctx: Context): Promise<void> {
  await ctx.emit(opts.field ? describeFieldView(opts.family, opts.field, opts.path) : describeFamilyView(opts.family));
}

/** `svc resources`: the list of families in the chosen format. */
import type { NoOptions } from '../../cli/command.js';
import type { Context } from '../../cli/context.js';
import { resourcesView } from './render.js';

export async function runResources(_opts: NoOptions, ctx: Context): Promise<void> {
  await ctx.emit(resourcesView());
}

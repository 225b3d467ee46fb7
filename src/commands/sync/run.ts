/** `svc sync --into TARGET FAMILY…`: each family in turn with its remembered settings; an array of summaries. */
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../errors.js';
import { runSync } from '../records/sync-run.js';
import type { SyncAllOptions } from './options.js';

export async function runSyncAll(opts: SyncAllOptions, ctx: Context): Promise<void> {
  if (ctx.globals.jq !== undefined) throw new UsageError('--jq is not taken by sync; pipe its -o json summary to jq');
  const command = `svc sync --into ${opts.sync.into} ${opts.families.map((f) => f.name).join(' ')}`;
  const summaries = await runSync(ctx, opts.sync, command, (compile) =>
    opts.families.map((family) => ({
      family,
      given: opts.sync.keepDeleted ? { keepDeleted: true } : {},
      compile: (settings) => compile(family, settings),
    })),
  );
  if (summaries) await ctx.emit((await import('../../sync/run-target.js')).summariesView(summaries));
}

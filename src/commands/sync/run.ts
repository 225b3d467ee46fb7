/**
 * `svc sync --into TARGET [FAMILY…]`: each family in turn with its remembered
 * settings (none named: every family the target holds); an array of
 * summaries. With --status, what the target holds, without asking the service.
 */
import { findFamily, type ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { SvcError, UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import type { SyncSummary } from '../../sync/engine.js';
import { runSync } from '../records/sync-run.js';
import type { SyncAllOptions } from './options.js';

export async function runSyncAll(opts: SyncAllOptions, ctx: Context): Promise<void> {
  if (ctx.globals.jq !== undefined) throw new UsageError('--jq is not taken by sync; pipe its -o json summary to jq');
  const { into } = opts.sync;
  if (opts.sync.status) {
    const [{ statusesOf }, { statusesView }] = await Promise.all([import('../records/sync-held.js'), import('../../sync/status.js')]);
    await ctx.emit(statusesView(await statusesOf(into, opts.families.map((f) => f.name), ctx)));
    return;
  }
  const families = opts.families.length ? opts.families : await heldFamilies(into);
  const command = `svc sync --into ${into} ${families.map((f) => f.name).join(' ')}`;
  const { summariesView } = await import('../../sync/run-target.js');
  // -o ndjson writes a family's line as its copy is committed, so a log keeps the families done before a failure;
  // the other formats (one JSON document, a table) print the families done at the end, a failure's included.
  const done: SyncSummary[] = [];
  const finished = async (summary: SyncSummary): Promise<void> => {
    done.push(summary);
    if (ctx.output().format === 'ndjson') await ctx.emit(summariesView([summary]));
  };
  let summaries: SyncSummary[] | undefined;
  try {
    summaries = await runSync(
      ctx,
      opts.sync,
      command,
      (compile) =>
        families.map((family) => ({
          family,
          given: opts.sync.keepDeleted ? { keepDeleted: true } : {},
          // It takes no filter flags or --fields: a --reset rebuilds each table with what it remembers.
          resetKeeps: true,
          compile: (settings) => compile(family, settings),
        })),
      finished,
    );
  } catch (err) {
    if (done.length && ctx.output().format !== 'ndjson') await ctx.emit(summariesView(done));
    throw err;
  }
  if (summaries && ctx.output().format !== 'ndjson') await ctx.emit(summariesView(summaries));
}

/** Every family the target holds, in name order; exit 2 when it holds none (or is not there). */
async function heldFamilies(into: string): Promise<ResourceFamily[]> {
  const { readTarget } = await import('../records/sync-held.js');
  const held = await readTarget(into, `${shown(into)} does not exist yet; name the families to copy into it: svc sync --into ${shown(into)} accounts contacts`);
  if (!held.length) throw new UsageError(`${shown(into)} holds no copy yet; name the families to copy: svc sync --into ${shown(into)} accounts contacts`);
  return held.map(({ state }) => {
    const family = findFamily(state.family);
    if (!family) throw new SvcError(`${shown(into)} keeps a copy named '${shown(state.family, 60)}', which is not a family svc knows (its state was edited?); name the families to sync`);
    return family;
  });
}

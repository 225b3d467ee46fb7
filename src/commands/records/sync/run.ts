/**
 * `svc <family> sync`: the filter flags as given (a --filter-file read into
 * its JSON, so the target remembers what was asked, not a path), connects,
 * and hands over to src/sync. Prints the summary with -o or on a terminal;
 * quiet otherwise (cron). SIGINT/SIGTERM: exit 130, the copy at its last
 * committed page.
 */
import type { Context } from '../../../cli/context.js';
import { UsageError } from '../../../errors.js';
import type { RememberedFilter } from '../../../sync/engine.js';
import { buildFilter, filterGiven, filterMemberOf, readFilterFile } from '../filter-flags.js';
import type { SyncOptions } from './options.js';
import { runSync } from '../sync-run.js';

/** The filter flags of this run, or undefined when none was given (the remembered ones apply). */
async function givenFilter(opts: SyncOptions, ctx: Context): Promise<RememberedFilter | undefined> {
  if (!filterGiven(opts)) return undefined;
  const filterJson = [...opts.filterJson];
  for (const file of opts.filterFiles) filterJson.push((await readFilterFile(file, ctx)).trim());
  return { filter: opts.filter, filterJson, ...(opts.search !== undefined ? { search: opts.search } : {}), ...(opts.tz !== undefined ? { tz: opts.tz } : {}) };
}

export async function runSyncCommand(opts: SyncOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  const { family } = opts;
  if (ctx.globals.jq !== undefined) throw new UsageError('--jq is not taken by sync; pipe its -o json summary to jq');
  if (opts.sync.status) {
    const [{ statusesOf }, { statusView }] = await Promise.all([import('../sync-held.js'), import('../../../sync/status.js')]);
    const [status] = await statusesOf(opts.sync.into, [family.name], ctx);
    if (status) await ctx.emit(statusView(status));
    return;
  }
  const filter = await givenFilter(opts, ctx);
  const build = (f: typeof family, o: Parameters<typeof buildFilter>[1]): ReturnType<typeof buildFilter> => buildFilter(f, o, ctx);
  const [{ compileSettings }, { summaryView }] = await Promise.all([import('../../../sync/compile.js'), import('../../../sync/run-target.js')]);
  if (opts.explain || opts.printRequest) {
    // What this run's flags ask for (the target is not read): the filter, or the first page's body.
    const compiled = await compileSettings(family, { filter: filter ?? { filter: [], filterJson: [] }, fields: opts.fields ?? '', keepDeleted: false }, build);
    let shown: unknown = compiled.filter ?? {};
    if (opts.printRequest) {
      const [{ pageBody }, { fieldsMember, planColumns }] = await Promise.all([import('../../../export/pager.js'), import('../../../sync/columns.js')]);
      const fields = fieldsMember(planColumns(family, compiled.selected ?? family.fields.map((f) => ({ name: f.name, path: f.name })), false));
      const q = { filterMember: await filterMemberOf(ctx), ...(compiled.filter ? { filter: compiled.filter } : {}), ...(compiled.search ? { search: compiled.search } : {}), fields, idKey: 'ID' };
      shown = pageBody(q, { after: 0, upTo: null }, 0, opts.sync.pageSize);
    }
    deps.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return;
  }
  const summaries = await runSync(ctx, opts.sync, `svc ${family.name} sync --into ${opts.sync.into}`, (compile) => [
    {
      family,
      given: { ...(filter ? { filter } : {}), ...(opts.fields !== undefined ? { fields: opts.fields } : {}), ...(opts.sync.keepDeleted ? { keepDeleted: true } : {}) },
      compile: (settings) => compile(family, settings),
    },
  ]);
  const [summary] = summaries ?? [];
  if (summary) await ctx.emit(summaryView(summary));
}

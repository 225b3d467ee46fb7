/**
 * `svc <family> sync`: the filter flags as given (a --filter-file read into
 * its JSON, so the target remembers what was asked, not a path), connects,
 * and hands over to src/sync. Prints the summary with -o or on a terminal;
 * quiet otherwise (cron). SIGINT/SIGTERM: exit 130, the copy at its last
 * committed page.
 */
import type { Context } from '../../../cli/context.js';
import { UsageError } from '../../../errors.js';
import { postQuery, postQueryEach } from '../../../records/query.js';
import type { RememberedFilter } from '../../../sync/engine.js';
import { buildFilter, filterMemberOf, readFilterFile } from '../filter-flags.js';
import type { SyncOptions } from './options.js';
import { lockProcessesOf } from '../../../util/file-lock.js';

/** The filter flags of this run, or undefined when none was given (the remembered ones apply). */
async function givenFilter(opts: SyncOptions, ctx: Context): Promise<RememberedFilter | undefined> {
  const any = opts.filter.length || opts.filterJson.length || opts.filterFile !== undefined || opts.search !== undefined || opts.tz !== undefined;
  if (!any) return undefined;
  const filterJson = [...opts.filterJson];
  if (opts.filterFile !== undefined) {
    filterJson.push((await readFilterFile(opts.filterFile, ctx)).trim());
  }
  return { filter: opts.filter, filterJson, ...(opts.search !== undefined ? { search: opts.search } : {}), ...(opts.tz !== undefined ? { tz: opts.tz } : {}) };
}

export async function runSyncCommand(opts: SyncOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  const { family } = opts;
  if (ctx.globals.jq !== undefined) throw new UsageError('--jq is not taken by sync; pipe its -o json summary to jq');
  const filter = await givenFilter(opts, ctx);
  const build = (f: typeof family, o: Parameters<typeof buildFilter>[1]): ReturnType<typeof buildFilter> => buildFilter(f, o, ctx);
  const [{ compileSettings }, { runTarget, syncInterruptSignal, summaryView, leafFromEnv }] = await Promise.all([import('../../../sync/compile.js'), import('../../../sync/run-target.js')]);
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
  const quietOutput = ctx.globals.output === undefined && !deps.stdout.isTTY;
  if (!quietOutput) ctx.output();
  const signal = syncInterruptSignal(deps.processes ? (s, fn) => deps.processes?.onceSignal(s, fn) : undefined);
  const filterMember = await filterMemberOf(ctx);
  const { client } = await ctx.connect({ token: true });
  const showProgress = opts.sync.progress || (!opts.sync.quiet && deps.stderr.isTTY);
  const [{ createProgress }, { tuneHeapForStreaming }] = await Promise.all([import('../../../export/progress.js'), import('../../../export/heap.js')]);
  // A first sync streams every record through, as an export does: the same heap settings keep its memory flat.
  tuneHeapForStreaming();
  const p = deps.processes;
  const [summary] = await runTarget({
    flags: opts.sync,
    families: [
      {
        family,
        given: { ...(filter ? { filter } : {}), ...(opts.fields !== undefined ? { fields: opts.fields } : {}), ...(opts.sync.keepDeleted ? { keepDeleted: true } : {}) },
        compile: (settings) => compileSettings(family, settings, build),
      },
    ],
    command: `svc ${family.name} sync --into ${opts.sync.into}`,
    filterMember,
    fetchFor: (f) => (body, each) => postQueryEach(client, f, body, each, signal),
    countFor: (f) => async (body) => (await postQuery<{ count: number }>(client, f, body, signal)).count,
    signal,
    ...leafFromEnv(deps.env),
    ...(p ? { processes: lockProcessesOf(p) } : {}),
    now: () => deps.now(),
    warn: (m) => void (opts.sync.quiet ? undefined : deps.stderr.write(`svc: ${m}\n`)),
    ...(showProgress ? { progressFor: (f: typeof family) => createProgress(deps.stderr, () => deps.now(), `${f.name} sync`) } : {}),
  });
  if (summary && !quietOutput) await ctx.emit(summaryView(summary));
}

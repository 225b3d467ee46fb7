/** `svc sync --into TARGET FAMILY…`: each family in turn with its remembered settings; an array of summaries. */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../errors.js';
import { postQuery, postQueryEach } from '../../records/query.js';
import { buildFilter, filterMemberOf } from '../records/filter-flags.js';
import type { SyncAllOptions } from './options.js';
import { lockProcessesOf } from '../../util/file-lock.js';

export async function runSyncAll(opts: SyncAllOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  if (ctx.globals.jq !== undefined) throw new UsageError('--jq is not taken by sync; pipe its -o json summary to jq');
  const [{ compileSettings }, { runTarget, syncInterruptSignal, summariesView, leafFromEnv }, { createProgress }, { tuneHeapForStreaming }] = await Promise.all([
    import('../../sync/compile.js'),
    import('../../sync/run-target.js'),
    import('../../export/progress.js'),
    import('../../export/heap.js'),
  ]);
  // A first sync streams every record through, as an export does: the same heap settings keep its memory flat.
  tuneHeapForStreaming();
  const quietOutput = ctx.globals.output === undefined && !deps.stdout.isTTY;
  if (!quietOutput) ctx.output();
  const signal = syncInterruptSignal(deps.processes ? (s, fn) => deps.processes?.onceSignal(s, fn) : undefined);
  const filterMember = await filterMemberOf(ctx);
  const { client } = await ctx.connect({ token: true });
  const build = (f: ResourceFamily, o: Parameters<typeof buildFilter>[1]): ReturnType<typeof buildFilter> => buildFilter(f, o, ctx);
  const showProgress = opts.sync.progress || (!opts.sync.quiet && deps.stderr.isTTY);
  const p = deps.processes;
  const summaries = await runTarget({
    flags: opts.sync,
    families: opts.families.map((family) => ({
      family,
      given: opts.sync.keepDeleted ? { keepDeleted: true } : {},
      compile: (settings) => compileSettings(family, settings, build),
    })),
    command: `svc sync --into ${opts.sync.into} ${opts.families.map((f) => f.name).join(' ')}`,
    filterMember,
    fetchFor: (f) => (body, each) => postQueryEach(client, f, body, each, signal),
    countFor: (f) => async (body) => (await postQuery<{ count: number }>(client, f, body, signal)).count,
    signal,
    ...leafFromEnv(deps.env),
    ...(p ? { processes: lockProcessesOf(p) } : {}),
    now: () => deps.now(),
    warn: (m) => void (opts.sync.quiet ? undefined : deps.stderr.write(`svc: ${m}\n`)),
    ...(showProgress ? { progressFor: (f: ResourceFamily) => createProgress(deps.stderr, () => deps.now(), `${f.name} sync`) } : {}),
  });
  if (!quietOutput) await ctx.emit(summariesView(summaries));
}

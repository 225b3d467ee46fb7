/**
 * What `svc <family> sync` and `svc sync` share once their flags are read:
 * the connection, Ctrl-C, the lock's process check, the progress line and
 * the engine (src/sync/run-target.ts). Quiet without -o and without a
 * terminal (cron); the caller prints the summaries otherwise.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { postQuery, queryFetcher } from '../../records/query.js';
import type { Compiled, Settings } from '../../sync/engine.js';
import type { SyncFlags } from '../../sync/flags.js';
import type { FamilyRequest } from '../../sync/run-target.js';
import type { SyncSummary } from '../../sync/engine.js';
import { lockProcessesOf } from '../../util/file-lock.js';
import { buildFilter, filterMemberOf } from './filter-flags.js';

/** A family's remembered settings → its query parts, with this run's filter language and context. */
export type CompileFor = (family: ResourceFamily, settings: Settings) => Promise<Compiled>;

/**
 * Runs the families into `flags.into`; the summaries, or undefined when the run is quiet (nothing to print).
 * `finished` is told each family's summary as its copy is committed (not when quiet).
 */
export async function runSync(
  ctx: Context,
  flags: SyncFlags,
  command: string,
  families: (compile: CompileFor) => FamilyRequest[],
  finished?: (summary: SyncSummary) => Promise<void>,
): Promise<SyncSummary[] | undefined> {
  const { deps } = ctx;
  const [{ compileSettings }, { runTarget, syncInterruptSignal, leafFromEnv }, { createProgress }, { tuneHeapForStreaming }] = await Promise.all([
    import('../../sync/compile.js'),
    import('../../sync/run-target.js'),
    import('../../export/progress.js'),
    import('../../export/heap.js'),
  ]);
  // A first sync streams every record through, as an export does: the same heap settings keep its memory flat.
  tuneHeapForStreaming();
  const quiet = ctx.globals.output === undefined && !deps.stdout.isTTY;
  if (!quiet) ctx.output();
  const signal = syncInterruptSignal(deps.processes ? (s, fn) => deps.processes?.onceSignal(s, fn) : undefined);
  const filterMember = await filterMemberOf(ctx);
  const { client } = await ctx.connect({ token: true });
  const compile: CompileFor = (family, settings) => compileSettings(family, settings, (f, o) => buildFilter(f, o, ctx));
  const showProgress = flags.progress || (!flags.quiet && deps.stderr.isTTY);
  const summaries = await runTarget({
    flags,
    families: families(compile),
    command,
    filterMember,
    fetchFor: (f) => queryFetcher(client, f, signal),
    countFor: (f) => async (body) => (await postQuery<{ count: number }>(client, f, body, signal)).count,
    signal,
    ...leafFromEnv(deps.env),
    ...(deps.processes ? { processes: lockProcessesOf(deps.processes) } : {}),
    now: () => deps.now(),
    monotonic: () => (deps.monotonic ? deps.monotonic() : performance.now()),
    warn: (m) => void (flags.quiet ? undefined : deps.stderr.write(`svc: ${m}\n`)),
    ...(showProgress ? { progressFor: (f: ResourceFamily) => createProgress(deps.stderr, () => deps.now(), `${f.name} sync`) } : {}),
    ...(finished && !quiet ? { finished } : {}),
  });
  return quiet ? undefined : summaries;
}

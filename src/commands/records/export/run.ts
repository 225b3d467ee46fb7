/**
 * `svc <family> export`: resolves where it goes, builds the request the same
 * way query does (filter language, --fields), connects, and hands over to the
 * engine in src/export/ (or to the service's own CSV export). Stops cleanly
 * on SIGINT/SIGTERM: the checkpoint stays and the exit code is 130.
 */
import type { Context } from '../../../cli/context.js';
import { UsageError } from '../../../errors.js';
import type { Deps } from '../../../cli/deps.js';
import type { ExportRequest } from '../../../export/plan.js';
import type { HttpClient } from '../../../http/client.js';
import { postQuery, queryFetcher, queryRequest } from '../../../records/query.js';
import { parseDuration } from '../../../util/duration.js';
import { parseCount } from '../../../records/query-body.js';
import { lockProcessesOf } from '../../../util/file-lock.js';
import { interruptSignal } from '../../../util/interrupt.js';
import type { ExportOptions } from './options.js';
import { exportedNotice } from './render.js';
import { commandText, toDestination, toExportRequest, type Destination } from './request.js';

/** One export on its way: the options, where it goes, the request and what stops it. */
interface Running {
  readonly opts: ExportOptions;
  readonly dest: Destination;
  readonly request: ExportRequest;
  readonly command: string;
  readonly client: HttpClient;
  readonly signal: AbortSignal;
}

/** The progress line: asked for, or on a terminal unless --quiet. */
function showsProgress(opts: ExportOptions, deps: Deps): boolean {
  return opts.progress || (!opts.quiet && deps.stderr.isTTY);
}

export async function runExportCommand(opts: ExportOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  if (ctx.globals.jq !== undefined) {
    throw new UsageError(`--jq filters what a command prints, and export writes its rows itself: use '${opts.family.name} query --all --jq …', or pipe 'export -o ndjson' to jq`);
  }
  const dest = await toDestination(opts, ctx);
  const { request, asked } = await toExportRequest(opts, ctx, dest);
  if (opts.explain || opts.printRequest) {
    const { pageBody } = await import('../../../export/pager.js');
    const shown = opts.explain ? (request.filter ?? {}) : pageBody({ ...request, idKey: 'ID' }, { after: 0, upTo: null }, 0, opts.pageSize);
    deps.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return;
  }
  const signal = interruptSignal(deps.processes ? (sig, fn) => deps.processes?.onceSignal(sig, fn) : undefined);
  const { client } = await ctx.connect({ token: true });
  const running: Running = { opts, dest, request, command: commandText(opts, dest, request.csv), client, signal };
  if (opts.serverSide) await serverSide(running, ctx);
  else await clientSide(running, asked, ctx);
}

async function clientSide(r: Running, asked: Record<string, unknown>, ctx: Context): Promise<void> {
  const { opts, dest, client, signal } = r;
  const { deps } = ctx;
  const [{ runExport }, { createProgress }, { requestKey }, { tuneHeapForStreaming }] = await Promise.all([
    import('../../../export/run-export.js'),
    import('../../../export/progress.js'),
    import('../../../export/plan.js'),
    import('../../../export/heap.js'),
  ]);
  tuneHeapForStreaming();
  const showProgress = showsProgress(opts, deps);
  const progress = showProgress ? createProgress(deps.stderr, () => deps.now(), `${opts.family.name} export`) : undefined;
  const result = await runExport({
    request: r.request,
    key: requestKey(asked),
    // A checkpoint from before --compression (uncompressed pages, no codec in its fingerprint) goes on with the
    // command that made it, or with --compression none; not with an explicit --compression gzip.
    ...(r.request.format === 'parquet' && opts.compression !== 'gzip' ? { olderKey: requestKey({ ...asked, compression: undefined }) } : {}),
    command: r.command,
    pageSize: opts.pageSize,
    concurrency: opts.concurrency ?? 1,
    ...(dest.target ? { target: dest.target } : {}),
    ...(deps.processes ? { processes: lockProcessesOf(deps.processes) } : {}),
    resume: opts.resume,
    ...(deps.env.SVC_CHECKPOINT_EVERY ? { checkpointEveryMs: parseDuration(deps.env.SVC_CHECKPOINT_EVERY, 'SVC_CHECKPOINT_EVERY') } : {}),
    ...(deps.env.SVC_PARQUET_ROW_GROUP ? { rowGroupRows: parseCount('SVC_PARQUET_ROW_GROUP', deps.env.SVC_PARQUET_ROW_GROUP, 1, 1_000_000) } : {}),
    manifest: opts.manifest,
    fetch: queryFetcher(client, opts.family, signal),
    count: async (body) => (await postQuery<{ count: number }>(client, opts.family, body, signal)).count,
    stdout: deps.stdout,
    ...(progress ? { progress } : {}),
    signal,
    now: () => deps.now(),
    warn: (m) => void (opts.quiet ? undefined : deps.stderr.write(`svc: ${m}\n`)),
  });
  if (showProgress && dest.outputFile) deps.stderr.write(exportedNotice(opts.family, result.rows, dest.outputFile, result.resumed ? 'resumed' : undefined));
}

async function serverSide(r: Running, ctx: Context): Promise<void> {
  const { opts, dest, client, signal } = r;
  const { deps } = ctx;
  const { runServerSide } = await import('../../../export/server-side.js');
  const result = await runServerSide({
    request: r.request,
    command: r.command,
    ...(dest.target ? { target: dest.target } : {}),
    ...(deps.processes ? { processes: lockProcessesOf(deps.processes) } : {}),
    manifest: opts.manifest,
    open: async (body) => (await queryRequest(client, opts.family, body, signal)).body,
    stdout: deps.stdout,
    signal,
    now: () => deps.now(),
  });
  if (showsProgress(opts, deps) && dest.outputFile) deps.stderr.write(exportedNotice(opts.family, result.rows, dest.outputFile, 'server-side'));
}

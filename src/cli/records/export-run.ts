/**
 * `svc <family> export`: checks the options, builds the request the same way
 * query does (filter language, --fields), connects, and hands over to the
 * engine in src/export/ (or to the service's own CSV export). Stops cleanly
 * on SIGINT/SIGTERM: the checkpoint stays and the exit code is 130.
 */
import { connectCmd } from '../legacy.js';
import { extname } from 'node:path';
import type { Command } from 'commander';
import { findFamily, type ResourceFamily } from '../../catalogue/index.js';
import { InterruptedError, UsageError } from '../../errors.js';
import { exportFormats, type ExportFormat, type ExportRequest } from '../../export/plan.js';
import type { OutputTarget } from '../../export/target.js';
import { parseDuration } from '../../util/duration.js';
import type { LockProcesses } from '../../util/file-lock.js';
import type { Row } from '../../output/view.js';
import { connect, type Connection } from '../connection.js';
import { delimitedOptions } from '../legacy.js';
import type { Deps } from '../deps.js';
import { allFields } from '../../records/columns.js';
import { parseCount, parseFields, queryBody } from '../../records/query-body.js';
import { buildFilter, filterMemberFor, post, postEach, type QueryFlags } from './query-run.js';

export interface ExportFlags extends Pick<QueryFlags, 'filter' | 'filterJson' | 'filterFile' | 'search' | 'tz' | 'explain' | 'printRequest' | 'pageSize'> {
  fields?: string;
  format?: string;
  outputFile?: string;
  concurrency?: string;
  shard?: string;
  resume?: boolean;
  manifest?: boolean;
  serverSide?: boolean;
  progress?: boolean;
  quiet?: boolean;
}

const BY_EXTENSION: Readonly<Record<string, ExportFormat>> = { '.csv': 'csv', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.json': 'json' };

/**
 * The global --output is a format (`-o csv`) or, for export, the file to
 * write (`--output accounts.csv`, as --output-file): the issue's spelling.
 */
function withGlobalOutput(self: Command, flags: ExportFlags): ExportFlags {
  const output = self.optsWithGlobals<{ output?: string }>().output;
  if (output === undefined || exportFormats.some((f) => f === output)) return flags;
  if (flags.outputFile !== undefined) throw new UsageError(`give the file once: --output ${output} and --output-file ${flags.outputFile}`);
  return { ...flags, outputFile: output };
}

/** --format, else the global -o when it names an export format, else the file's extension. */
function formatOf(self: Command, flags: ExportFlags): ExportFormat {
  const global = self.optsWithGlobals<{ output?: string }>().output;
  const asked = flags.format ?? (exportFormats.some((f) => f === global) ? global : undefined);
  const found = exportFormats.find((f) => f === asked);
  if (found) return found;
  if (asked !== undefined && flags.format !== undefined) throw new UsageError(`unknown export format '${asked}'; choose csv, ndjson or json`);
  const byName = flags.outputFile ? BY_EXTENSION[extname(flags.outputFile).toLowerCase()] : undefined;
  if (byName) return byName;
  throw new UsageError('export needs a format: --format csv, ndjson or json');
}

/** Refuses combinations that cannot work, before anything is sent; answers where the export goes. */
async function checkFlags(flags: ExportFlags, format: ExportFormat): Promise<OutputTarget | undefined> {
  const [{ parseShard }, { resolveOutput }] = await Promise.all([import('../../export/plan.js'), import('../../export/target.js')]);
  if (flags.shard !== undefined && !parseShard(flags.shard)) throw new UsageError(`--shard takes K/N with 1 <= K <= N <= 1000, e.g. 2/4, not '${flags.shard}'`);
  if (flags.shard && format === 'json') throw new UsageError('--shard cannot write json (concatenated arrays are not one document); use --format ndjson or csv');
  if ((flags.resume || flags.manifest) && !flags.outputFile) throw new UsageError(`--${flags.resume ? 'resume' : 'manifest'} needs --output-file FILE`);
  if (flags.serverSide) {
    if (format !== 'csv') throw new UsageError("--server-side writes the service's own csv; use --format csv");
    if (flags.shard || flags.concurrency || flags.resume) throw new UsageError('--server-side is one request: drop --shard, --concurrency and --resume');
  }
  const target = flags.outputFile ? await resolveOutput(flags.outputFile) : undefined;
  if (target && target.kind !== 'file' && (flags.resume || flags.manifest)) {
    throw new UsageError(`--${flags.resume ? 'resume' : 'manifest'} needs a regular file; ${target.given} is ${target.what}, which svc writes straight through`);
  }
  return target;
}

/** The request and the fingerprint of the command line it came from. */
async function buildRequest(self: Command, deps: Deps, family: ResourceFamily, flags: ExportFlags, format: ExportFormat): Promise<{ request: ExportRequest; asked: Record<string, unknown> }> {
  const { parseShard } = await import('../../export/plan.js');
  const ctx = delimitedOptions(self);
  const selected = flags.fields ? parseFields(family, flags.fields, findFamily) : undefined;
  const filter = await buildFilter(family, flags, deps);
  const filterMember = await filterMemberFor(self, deps);
  const fields = selected ? (queryBody({ filterMember, fields: selected }).fields as ExportRequest['fields']) : undefined;
  const shard = flags.shard ? parseShard(flags.shard) : undefined;
  const csv = { header: ctx.header, delimiter: flags.serverSide ? ';' : ctx.delimiter, eol: ctx.eol };
  const request: ExportRequest = {
    family: family.name,
    filterMember,
    ...(filter ? { filter } : {}),
    ...(flags.search ? { search: flags.search } : {}),
    ...(fields ? { fields } : {}),
    columns: (selected ?? allFields(family)).map((s) => s.name),
    format,
    csv,
    ...(shard ? { shard } : {}),
  };
  const asked = { family: family.name, filter: flags.filter, filterJson: flags.filterJson, filterFile: flags.filterFile, search: flags.search, tz: flags.tz, fields: flags.fields, format, shard: flags.shard, csv, filterMember };
  return { request, asked };
}

/** The command line, for messages about a checkpoint. */
function commandText(family: ResourceFamily, flags: ExportFlags, format: ExportFormat): string {
  const q = (s: string): string => (/^[\w./,=:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const parts = [`svc ${family.name} export --format ${format}`];
  for (const f of flags.filter ?? []) parts.push(`--filter ${q(f)}`);
  for (const f of flags.filterJson ?? []) parts.push(`--filter-json ${q(f)}`);
  if (flags.filterFile) parts.push(`--filter-file ${q(flags.filterFile)}`);
  if (flags.fields) parts.push(`--fields ${q(flags.fields)}`);
  if (flags.shard) parts.push(`--shard ${flags.shard}`);
  if (flags.outputFile) parts.push(`--output-file ${q(flags.outputFile)}`);
  return parts.join(' ');
}

/** Aborts on the first SIGINT or SIGTERM; a repeat (conf re-raises after its cleanup) is absorbed. */
function interruptSignal(deps: Deps): AbortSignal {
  const controller = new AbortController();
  const on = (signal: 'SIGINT' | 'SIGTERM') => (): void => controller.abort(new InterruptedError(`interrupted by ${signal}`));
  deps.processes?.onceSignal('SIGINT', on('SIGINT'));
  deps.processes?.onceSignal('SIGTERM', on('SIGTERM'));
  return controller.signal;
}

/** `svc <family> export`. */
export async function runExportCommand(self: Command, deps: Deps, family: ResourceFamily, given: ExportFlags): Promise<void> {
  const flags = withGlobalOutput(self, given);
  const format = formatOf(self, flags);
  const target = await checkFlags(flags, format);
  const pageSize = flags.pageSize ? parseCount('--page-size', flags.pageSize, 1, 10000) : 1000;
  const concurrency = flags.concurrency ? parseCount('--concurrency', flags.concurrency, 1, 32) : 1;
  const { request, asked } = await buildRequest(self, deps, family, flags, format);
  if (flags.explain || flags.printRequest) {
    const { pageBody } = await import('../../export/pager.js');
    const shown = flags.explain ? (request.filter ?? {}) : pageBody({ ...request, idKey: 'ID' }, { after: 0, upTo: null }, 0, pageSize);
    deps.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return;
  }
  const signal = interruptSignal(deps);
  const conn = await connectCmd(self, deps, { token: true });
  try {
    const command = commandText(family, flags, format);
    if (flags.serverSide) await serverSide(conn, deps, family, flags, { request, command, target, signal });
    else await clientSide(conn, deps, family, flags, { request, asked, command, target, format, pageSize, concurrency, signal });
  } finally {
    await conn.client.close();
  }
}

/** What the export engine needs to tell a running export's lock from a dead one's. */
function lockProcesses(deps: Deps): LockProcesses | undefined {
  const p = deps.processes;
  return p ? { pid: p.pid, isAlive: (pid) => p.kill(pid, 0) } : undefined;
}

interface ServerSideArgs {
  readonly request: ExportRequest;
  readonly command: string;
  readonly target: OutputTarget | undefined;
  readonly signal: AbortSignal;
}

interface ClientSideArgs extends ServerSideArgs {
  readonly asked: Record<string, unknown>;
  readonly format: ExportFormat;
  readonly pageSize: number;
  readonly concurrency: number;
}

async function clientSide(conn: Connection, deps: Deps, family: ResourceFamily, flags: ExportFlags, a: ClientSideArgs): Promise<void> {
  const [{ runExport }, { createProgress }, { requestKey }, { tuneHeapForStreaming }] = await Promise.all([
    import('../../export/run-export.js'),
    import('../../export/progress.js'),
    import('../../export/plan.js'),
    import('../../export/heap.js'),
  ]);
  tuneHeapForStreaming();
  const showProgress = flags.progress === true || (!flags.quiet && deps.stderr.isTTY);
  const progress = showProgress ? createProgress(deps.stderr, () => deps.now(), `${family.name} export`) : undefined;
  const result = await runExport({
    request: a.request,
    key: requestKey(a.asked),
    command: a.command,
    pageSize: a.pageSize,
    concurrency: a.concurrency,
    ...(a.target ? { target: a.target } : {}),
    ...(deps.processes ? { processes: lockProcesses(deps) } : {}),
    resume: flags.resume === true,
    ...(deps.env.SVC_CHECKPOINT_EVERY ? { checkpointEveryMs: parseDuration(deps.env.SVC_CHECKPOINT_EVERY, 'SVC_CHECKPOINT_EVERY') } : {}),
    manifest: flags.manifest === true,
    fetch: (body, each) => postEach(conn, family, body, each, a.signal),
    count: async (body) => (await post<{ count: number }>(conn, family, body, a.signal)).count,
    stdout: deps.stdout,
    ...(progress ? { progress } : {}),
    signal: a.signal,
    now: () => deps.now(),
    warn: (m) => void (flags.quiet ? undefined : deps.stderr.write(`svc: ${m}\n`)),
  });
  if (showProgress && flags.outputFile) {
    deps.stderr.write(`svc: exported ${result.rows.toLocaleString('en-US')} ${family.name} to ${flags.outputFile}${result.resumed ? ' (resumed)' : ''}\n`);
  }
}

async function serverSide(conn: Connection, deps: Deps, family: ResourceFamily, flags: ExportFlags, a: ServerSideArgs): Promise<void> {
  const { runServerSide } = await import('../../export/server-side.js');
  const result = await runServerSide({
    request: a.request,
    command: a.command,
    ...(a.target ? { target: a.target } : {}),
    ...(deps.processes ? { processes: lockProcesses(deps) } : {}),
    manifest: flags.manifest === true,
    open: async (body) => (await conn.client.request({ method: 'POST', root: 'api', path: `/${family.name}`, json: body, idempotent: true, signal: a.signal })).body,
    stdout: deps.stdout,
    signal: a.signal,
    now: () => deps.now(),
  });
  if ((flags.progress || (!flags.quiet && deps.stderr.isTTY)) && flags.outputFile) {
    deps.stderr.write(`svc: exported ${result.rows.toLocaleString('en-US')} ${family.name} to ${flags.outputFile} (server-side)\n`);
  }
}

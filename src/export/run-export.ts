/**
 * The export engine: finds the ID ranges, fetches them (in parallel when
 * asked), writes the pages in ID order to a sink, keeps the checkpoint up to
 * date, and on success puts the file in place and writes the manifest. On a
 * failure or an interrupt the target is untouched and the checkpoint stays.
 */
import type { OutStream } from '../cli/deps.js';
import { ExitCode, SvcError } from '../errors.js';
import type { Row } from '../output/view.js';
import { openFileSink, removePartial, stdoutSink, type Sink } from './atomic-file.js';
import { checkpointPath, checkSameRequest, readCheckpoint, removeCheckpoint, saveCheckpoint, type Checkpoint } from './checkpoint.js';
import { createEncoder, withoutKey } from './encode.js';
import { buildManifest, writeManifest } from './manifest.js';
import { inOrder } from './ordered.js';
import { idSelection, pagesOf, type FetchRows, type Page, type PageQuery } from './pager.js';
import type { ExportRequest, IdRange } from './plan.js';
import type { Progress } from './progress.js';
import { planRanges } from './ranges.js';

/** Pages each range may fetch ahead of the writer. */
const DEPTH = 2;

export interface ExportJob {
  readonly request: ExportRequest;
  /** Fingerprint and text of the command line (see requestKey). */
  readonly key: string;
  readonly command: string;
  readonly pageSize: number;
  readonly concurrency: number;
  /** The file to write; absent: standard output. */
  readonly target?: string;
  readonly resume: boolean;
  readonly manifest: boolean;
  readonly fetch: FetchRows;
  /** A count request for the progress estimate. */
  readonly count?: (body: Record<string, unknown>) => Promise<number>;
  readonly stdout: OutStream;
  readonly progress?: Progress;
  /** Aborted on SIGINT/SIGTERM, with the error to report. */
  readonly signal: AbortSignal;
  readonly now: () => number;
  /** A line on stderr (only for things that went wrong and were handled). */
  readonly warn: (message: string) => void;
}

export interface ExportResult {
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly resumed: boolean;
}

/** The lowest and highest ID matching the filter, or undefined when nothing matches. */
async function idBounds(fetch: FetchRows, req: ExportRequest): Promise<{ min: number; max: number } | undefined> {
  const ask = async (sort: string): Promise<number | undefined> => {
    const body: Record<string, unknown> = { sort: [sort], limit: 1, fields: ['ID'] };
    if (req.filter) body[req.filterMember] = req.filter;
    if (req.search) body.query = req.search;
    const first = (await fetch(body))[0];
    return first ? Number(first.ID) : undefined;
  };
  const [min, max] = await Promise.all([ask('+ID'), ask('-ID')]);
  return min === undefined || max === undefined ? undefined : { min, max };
}

async function freshState(job: ExportJob): Promise<Checkpoint> {
  const split = job.concurrency > 1 || job.request.shard !== undefined;
  const ranges: IdRange[] = split ? planRanges(await idBounds(job.fetch, job.request), job.concurrency, job.request.shard) : [{ after: 0, upTo: null }];
  return {
    version: 1,
    key: job.key,
    command: job.command,
    request: job.request,
    ranges: ranges.map((r) => ({ ...r, last: r.after, done: false })),
    rows: 0,
    bytes: 0,
    startedAt: new Date(job.now()).toISOString(),
  };
}

/** The state to continue from and the sink to write to. */
async function begin(job: ExportJob): Promise<{ state: Checkpoint; sink: Sink; resumed: boolean }> {
  const target = job.target;
  if (!target) return { state: await freshState(job), sink: stdoutSink(job.stdout), resumed: false };
  const previous = job.resume ? readCheckpoint(target) : undefined;
  if (previous) {
    checkSameRequest(previous, job.key, job.command, target);
    return { state: previous, sink: await openFileSink(target, previous.bytes), resumed: true };
  }
  removeCheckpoint(target);
  await removePartial(target);
  const state = await freshState(job);
  const sink = await openFileSink(target);
  saveCheckpoint(target, state);
  return { state, sink, resumed: false };
}

/** The error to report: the cause, and how to continue when a checkpoint is kept. */
function explain(err: unknown, state: Checkpoint, target: string | undefined): SvcError {
  const base = err instanceof SvcError ? err : new SvcError(`export failed: ${err instanceof Error ? err.message : String(err)}`);
  if (!target || base.exitCode === ExitCode.usage) return base;
  const hint = `${state.rows.toLocaleString('en-US')} rows kept in ${target}.svc-partial; ${target} is untouched; run the same command with --resume to continue (checkpoint ${checkpointPath(target)})`;
  return new SvcError(`${base.message}; ${hint}`, base.exitCode);
}

/** Starts a count request for the progress line's estimate; its failure only loses the estimate. */
function estimate(job: ExportJob, state: Checkpoint): void {
  if (!job.progress || !job.count) return;
  const first = state.ranges[0];
  const lastRange = state.ranges[state.ranges.length - 1];
  const ids: Record<string, number> = { '>': first?.after ?? 0 };
  if (lastRange && lastRange.upTo !== null) ids['<='] = lastRange.upTo;
  const req = state.request;
  const filter = req.filter ? { 0: ['AND', req.filter, { ID: ids }] } : { ID: ids };
  job.count({ [req.filterMember]: filter, ...(req.search ? { query: req.search } : {}), count: true }).then((n) => job.progress?.setTotal(n), () => undefined);
}

/** Runs an export to its end; throws an SvcError (exit 1, or 130 when interrupted) otherwise. */
export async function runExport(job: ExportJob): Promise<ExportResult> {
  const { state, sink, resumed } = await begin(job);
  const req = state.request;
  const sel = idSelection(req.fields);
  const query: PageQuery = { filterMember: req.filterMember, ...(req.filter ? { filter: req.filter } : {}), ...(req.search ? { search: req.search } : {}), ...(sel.fields ? { fields: sel.fields } : {}), idKey: sel.idKey };
  const encoder = createEncoder(req);
  const pending = state.ranges.filter((r) => !r.done);
  const shrink = (size: number): void => job.warn(`a page kept failing; asking again with ${size} records a page`);
  estimate(job, state);
  try {
    if (sink.bytes === 0) await sink.write(encoder.head());
    const pages = inOrder<Page>(
      pending.map((r) => (signal) => pagesOf(job.fetch, query, r, r.last, { pageSize: job.pageSize, signal, onShrink: shrink })),
      DEPTH,
      job.signal,
    );
    for await (const { index, item } of pages) {
      for (const earlier of pending.slice(0, index)) earlier.done = true;
      const rows: Row[] = sel.strip ? item.rows.map((r) => withoutKey(r, sel.idKey)) : item.rows;
      await sink.write(encoder.page(rows, state.rows));
      state.rows += rows.length;
      state.bytes = sink.bytes;
      const range = pending[index];
      if (range) range.last = item.last;
      if (job.target) saveCheckpoint(job.target, state);
      job.progress?.update(state.rows);
      job.signal.throwIfAborted();
    }
    job.signal.throwIfAborted();
    for (const r of pending) r.done = true;
    await sink.write(encoder.tail(state.rows));
    const sha256 = await sink.commit();
    job.progress?.clear();
    if (job.target) finish(job.target, job, state, { sha256, bytes: sink.bytes });
    return { rows: state.rows, bytes: sink.bytes, sha256, resumed };
  } catch (err) {
    job.progress?.clear();
    await sink.close();
    throw explain(err, state, job.target);
  }
}

/** After the file is in place: the checkpoint goes, the manifest (when asked) comes. */
function finish(target: string, job: ExportJob, state: Checkpoint, done: { sha256: string; bytes: number }): void {
  removeCheckpoint(target);
  if (!job.manifest) return;
  const endedAt = new Date(job.now()).toISOString();
  writeManifest(target, buildManifest(target, state.request, { rows: state.rows, bytes: done.bytes, sha256: done.sha256, startedAt: state.startedAt, endedAt }));
}

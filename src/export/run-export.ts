/**
 * The export engine: finds the ID range (the shard's, or everything), cuts it
 * into chunks fetched in parallel when asked, writes the pages in ID order to a sink, keeps the checkpoint up to
 * date, and on success puts the file in place and writes the manifest. On a
 * failure or an interrupt the target is untouched and the checkpoint stays.
 */
import type { OutStream } from '../cli/deps.js';
import { ExitCode, SvcError } from '../errors.js';
import type { Row } from '../output/view.js';
import { openFileSink, removePartial, stdoutSink, type Sink } from './atomic-file.js';
import { checkpointPath, checkSameRequest, readCheckpoint, removeCheckpoint, saveCheckpoint, type Checkpoint, type RangeState } from './checkpoint.js';
import { createEncoder, withoutKey } from './encode.js';
import { buildManifest, writeManifest } from './manifest.js';
import { ByteBuilder } from './byte-builder.js';
import { createChunker, type Density } from './chunks.js';
import { inOrder, type Producer } from './ordered.js';
import { idSelection, pagesOf, type Digest, type FetchRows, type PageQuery } from './pager.js';
import type { ExportRequest, IdRange } from './plan.js';
import type { Progress } from './progress.js';
import { shardRange } from './ranges.js';

/** Pages a chunk may fetch ahead of the writer. */
const DEPTH = 2;
/** Chunks started and not yet written, per concurrent request: bounds memory at WINDOW × concurrency × DEPTH pages. */
const WINDOW = 2;
/**
 * How often the checkpoint is saved while pages arrive. Saving after every
 * page cost a file write and rename per thousand rows; a checkpoint that lags
 * is still exact (--resume cuts the partial file back to the bytes it names),
 * and one is always saved when the run stops on an error or a signal.
 */
const CHECKPOINT_EVERY_MS = 1000;

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

/** The query body's filter part: the user's filter (and search) ANDed with an ID condition. */
function withIds(req: ExportRequest, ids?: Record<string, number>): Record<string, unknown> {
  const filter = ids ? (req.filter ? { 0: ['AND', req.filter, { ID: ids }] } : { ID: ids }) : req.filter;
  return { ...(filter ? { [req.filterMember]: filter } : {}), ...(req.search ? { query: req.search } : {}) };
}

/** The IDs above `range.last` within the range, as a filter condition. */
function remaining(range: RangeState): Record<string, number> {
  return range.upTo === null ? { '>': range.last } : { '>': range.last, '<=': range.upTo };
}

/** The IDs of the first `limit` records matching the filter (within `ids` when given) in `sort` order, asked for IDs only. */
async function idsOf(fetch: FetchRows, req: ExportRequest, sort: '+ID' | '-ID', limit: number, ids?: Record<string, number>): Promise<number[]> {
  return (await fetch({ ...withIds(req, ids), sort: [sort], limit, fields: ['ID'] })).map((row) => Number(row.ID));
}

/** The ID of the first record in `sort` order: +ID the lowest, -ID the highest. */
async function firstId(fetch: FetchRows, req: ExportRequest, sort: '+ID' | '-ID', ids?: Record<string, number>): Promise<number | undefined> {
  return (await idsOf(fetch, req, sort, 1, ids))[0];
}

/** The lowest and highest ID matching the filter, or undefined when nothing matches. */
async function idBounds(fetch: FetchRows, req: ExportRequest): Promise<{ min: number; max: number } | undefined> {
  const [min, max] = await Promise.all([firstId(fetch, req, '+ID'), firstId(fetch, req, '-ID')]);
  return min === undefined || max === undefined ? undefined : { min, max };
}

async function freshState(job: ExportJob): Promise<Checkpoint> {
  const shard = job.request.shard;
  const range: IdRange = shard ? shardRange(await idBounds(job.fetch, job.request), shard) : { after: 0, upTo: null };
  return {
    version: 2,
    key: job.key,
    command: job.command,
    request: job.request,
    range: { ...range, last: range.after },
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

/** How many records are left to export, for the progress line (on a terminal, or with --progress). */
function countLeft(job: ExportJob, state: Checkpoint): void {
  if (!job.count || !job.progress) return;
  const progress = job.progress;
  job.count({ ...withIds(state.request, remaining(state.range)), count: true }).then((n) => progress.setTotal(state.rows + n), () => undefined);
}

/**
 * What parallel chunks are sized from: the highest remaining ID, and the IDs
 * of the first page of what is left (IDs only: small and quick to serve). A
 * count would do too, but with a filter it costs the service a scan of the
 * whole range before the first page. Without it (one request at a time) the
 * rest of the range is one chunk, paged by ID.
 */
async function densityOf(job: ExportJob, state: Checkpoint): Promise<Density | undefined> {
  if (job.concurrency <= 1) return undefined;
  const ids = remaining(state.range);
  const [sample, max] = await Promise.all([idsOf(job.fetch, state.request, '+ID', job.pageSize, ids), firstId(job.fetch, state.request, '-ID', ids)]);
  const upTo = sample.at(-1);
  if (max === undefined || upTo === undefined || !(upTo > state.range.last)) return undefined;
  return { max, count: sample.length, upTo };
}

/** A page as it is written: its bytes, how many records it holds, and its highest ID. */
interface EncodedPage {
  readonly bytes: Buffer;
  readonly rows: number;
  readonly last: number;
}

/**
 * The pages of the rest of the range, in ID order, encoded as they arrive:
 * chunks fetched `concurrency` at a time.
 */
function pagesLeft(job: ExportJob, state: Checkpoint, query: PageQuery, density: Density | undefined, encode: (row: Row) => string): AsyncGenerator<EncodedPage> {
  const range = state.range;
  const chunker = createChunker(range, range.last, job.pageSize, density);
  const onShrink = (size: number): void => job.warn(`a page kept failing; asking again with ${size} records a page`);
  const newDigest = (): Digest<Buffer> => {
    const bytes = new ByteBuilder();
    return { add: (row) => bytes.append(encode(row)), finish: () => bytes.bytes() };
  };
  const next = (): Producer<EncodedPage> | undefined => {
    const chunk = chunker.next();
    if (!chunk) return undefined;
    return async function* chunkPages(signal) {
      let rows = 0;
      for await (const page of pagesOf(job.fetch, query, chunk, chunk.after, { pageSize: job.pageSize, signal, onShrink }, newDigest)) {
        rows += page.count;
        yield { bytes: page.item, rows: page.count, last: page.last };
      }
      chunker.observe(chunk, rows);
    };
  };
  return inOrder(next, { running: job.concurrency, window: WINDOW * job.concurrency, depth: DEPTH, signal: job.signal });
}

/** Runs an export to its end; throws an SvcError (exit 1, or 130 when interrupted) otherwise. */
export async function runExport(job: ExportJob): Promise<ExportResult> {
  const { state, sink, resumed } = await begin(job);
  const req = state.request;
  const sel = idSelection(req.fields);
  const query: PageQuery = { filterMember: req.filterMember, ...(req.filter ? { filter: req.filter } : {}), ...(req.search ? { search: req.search } : {}), ...(sel.fields ? { fields: sel.fields } : {}), idKey: sel.idKey };
  const encoder = createEncoder(req);
  countLeft(job, state);
  let savedAt = job.now();
  try {
    if (sink.bytes === 0) await sink.write(encoder.head());
    const density = await densityOf(job, state);
    const encode = (row: Row): string => encoder.record(sel.strip ? withoutKey(row, sel.idKey) : row);
    for await (const page of pagesLeft(job, state, query, density, encode)) {
      await sink.write(state.rows === 0 ? encoder.first(page.bytes) : page.bytes);
      state.rows += page.rows;
      state.bytes = sink.bytes;
      state.range.last = page.last;
      if (job.target && job.now() - savedAt >= CHECKPOINT_EVERY_MS) {
        await sink.flush();
        saveCheckpoint(job.target, state);
        savedAt = job.now();
      }
      job.progress?.update(state.rows);
      job.signal.throwIfAborted();
    }
    job.signal.throwIfAborted();
    await sink.write(encoder.tail(state.rows));
    const sha256 = await sink.commit();
    job.progress?.clear();
    if (job.target) finish(job.target, job, state, { sha256, bytes: sink.bytes });
    return { rows: state.rows, bytes: sink.bytes, sha256, resumed };
  } catch (err) {
    job.progress?.clear();
    if (job.target) await keepCheckpoint(job.target, sink, state);
    await sink.close();
    throw explain(err, state, job.target);
  }
}

/** Saves the state the partial file holds after a failed or stopped run; a failure to save leaves the last checkpoint. */
async function keepCheckpoint(target: string, sink: Sink, state: Checkpoint): Promise<void> {
  try {
    await sink.flush();
    saveCheckpoint(target, state);
  } catch {
    // The previous checkpoint is still exact: --resume cuts the partial file back to it.
  }
}

/** After the file is in place: the checkpoint goes, the manifest (when asked) comes. */
function finish(target: string, job: ExportJob, state: Checkpoint, done: { sha256: string; bytes: number }): void {
  removeCheckpoint(target);
  if (!job.manifest) return;
  const endedAt = new Date(job.now()).toISOString();
  writeManifest(target, buildManifest(target, state.request, { rows: state.rows, bytes: done.bytes, sha256: done.sha256, startedAt: state.startedAt, endedAt }));
}

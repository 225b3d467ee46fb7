/**
 * The export engine: finds the ID range (the shard's, or everything), cuts it
 * into chunks fetched in parallel when asked, writes the pages in ID order to a sink, keeps the checkpoint up to
 * date, and on success puts the file in place and writes the manifest. On a
 * failure or an interrupt the target is untouched and the checkpoint stays.
 */
import { lstat, stat } from 'node:fs/promises';
import type { OutStream } from '../output/io.js';
import { ExitCode, SvcError, UsageError } from '../errors.js';
import type { Row } from '../output/view.js';
import type { HeldLock, LockProcesses } from '../util/file-lock.js';
import { ioReason } from '../util/io-error.js';
import { shown } from '../util/shown.js';
import { openFileSink, partialPath, removePartial } from './atomic-file.js';
import { stdoutSink, type Sink } from './sink.js';
import { openStreamSink } from './stream-sink.js';
import { CHECKPOINT_VERSION, checkpointPath, checkSameRequest, readCheckpoint, removeCheckpoint, saveCheckpoint, type Checkpoint } from './checkpoint.js';
import { createEncoder, withoutKey } from './encode.js';
import { checkLock, lockTarget } from './export-lock.js';
import { firstId, idBounds, idsOf, remaining, withIds } from './ids.js';
import { buildManifest, createManifestWriter, dropManifests, type Manifest, type ManifestWriter } from './manifest.js';
import { ByteBuilder } from './byte-builder.js';
import { createChunker, type Density } from './chunks.js';
import { inOrder, type Producer } from './ordered.js';
import { idSelection, pagesOf, type Digest, type FetchRows, type Page, type PageQuery } from './pager.js';
import type { FormatWriter } from './format.js';
import type { ExportRequest, IdRange } from './plan.js';
import type { Progress } from './progress.js';
import { shardRange } from './ranges.js';
import type { OutputTarget } from './target.js';

/**
 * A Parquet row group's limits: at most this many records, or this many bytes
 * of encoded values. Smaller groups keep memory lower (peaks of 81-90 MB at
 * 100k and 1M accounts, against 95-111 MB with 16k-32k records) and cost no
 * time; a resumed export keeps the limits of its checkpoint. Here, not in
 * parquet/writer.ts, which only a Parquet export loads.
 */
const ROW_GROUP_ROWS = 8_192;
const ROW_GROUP_BYTES = 8 * 1024 * 1024;

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
  /** The fingerprint the same command had before Parquet pages had a codec (its checkpoints have none: checkSameCodec). */
  readonly olderKey?: string;
  readonly command: string;
  readonly pageSize: number;
  readonly concurrency: number;
  /** Where to write (see resolveOutput); absent: standard output. */
  readonly target?: OutputTarget;
  /** Rows in a Parquet row group at most (default ROW_GROUP_ROWS; smaller in tests); a resumed run keeps its checkpoint's. */
  readonly rowGroupRows?: number;
  /** How often the checkpoint is saved while pages arrive (default CHECKPOINT_EVERY_MS). */
  readonly checkpointEveryMs?: number;
  /** This machine's processes, to tell a running export's lock from a dead one's. */
  readonly processes?: LockProcesses;
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

/** The sha256 of nothing: a fresh partial file's. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** A new run's state; over `kept` (a checkpoint's ID range), else the shard's range found now, or everything. */
async function freshState(job: ExportJob, kept?: IdRange): Promise<Checkpoint> {
  const shard = job.request.shard;
  const range: IdRange = kept ?? (shard ? shardRange(await idBounds(job.fetch, job.request), shard) : { after: 0, upTo: null });
  return {
    version: CHECKPOINT_VERSION,
    key: job.key,
    command: job.command,
    request: job.request,
    range: { ...range, last: range.after },
    rows: 0,
    bytes: 0,
    partialSha256: EMPTY_SHA256,
    startedAt: new Date(job.now()).toISOString(),
    ...(job.request.format === 'parquet' ? { parquet: { rowGroupRows: job.rowGroupRows ?? ROW_GROUP_ROWS, rowGroupBytes: ROW_GROUP_BYTES, rowGroups: [] } } : {}),
  };
}

/** The state to continue from and the sink to write to (whose rename first removes the manifest of the file it replaces). */
async function begin(job: ExportJob, lock: HeldLock | undefined, manifest: ManifestWriter | undefined): Promise<{ state: Checkpoint; sink: Sink; resumed: boolean }> {
  const target = job.target;
  job.signal.throwIfAborted();
  if (!target || target.kind === 'stdout') return { state: await freshState(job), sink: stdoutSink(job.stdout, job.signal), resumed: false };
  if (target.kind === 'stream') {
    const onWait = (): void => job.warn(`waiting for a reader of ${shown(target.given)} (${target.what})`);
    return { state: await freshState(job), sink: await openStreamSink(target.path, target.fifo, job.signal, onWait), resumed: false };
  }
  const file = target.path;
  // Any export replacing the file first removes the manifests describing it (with --manifest, then writes its own).
  const beforeRename = async (): Promise<void> => {
    checkLock(lock, file);
    await (manifest ? manifest.dropOld() : dropManifests(target));
  };
  const previous = job.resume ? readCheckpoint(file) : undefined;
  let range: IdRange | undefined;
  if (previous) {
    checkSameRequest(previous, job.olderKey === undefined ? [job.key] : [job.key, job.olderKey], job.command, file);
    if (!(await partialGone(file))) {
      checkSameCodec(previous, job.request, file);
      const resume = { bytes: previous.bytes, sha256: previous.partialSha256 };
      return { state: previous, sink: await openFileSink(file, { resume, signal: job.signal, beforeRename }), resumed: true };
    }
    // This export's checkpoint without its partial file: the run was stopped after the rename (the file is in
    // place) and before the checkpoint went, or the partial file was removed. Started afresh, over the same ID
    // range (a shard's, fixed when its job array started), it writes every record again: none is lost.
    job.warn(`${shown(partialPath(file))} is gone (its export was put in place, or it was removed); starting afresh, as without --resume`);
    range = { after: previous.range.after, upTo: previous.range.upTo };
  }
  removeCheckpoint(file);
  await removePartial(file);
  const state = await freshState(job, range);
  // The new file keeps the permissions of the one it replaces (a private export stays private).
  const mode = await stat(file).then((st) => st.mode & 0o7777, () => undefined);
  const sink = await openFileSink(file, { signal: job.signal, beforeRename, ...(mode === undefined ? {} : { mode }) });
  saveCheckpoint(file, state);
  return { state, sink, resumed: false };
}

/** Whether a checkpoint's partial file is not there at all (one that is there, but short or changed, is refused by openFileSink). */
async function partialGone(file: string): Promise<boolean> {
  return lstat(partialPath(file)).then(
    () => false,
    (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT',
  );
}

/**
 * Refuses a checkpoint whose Parquet pages are not compressed as this export's
 * are (a file must not mix them; its footer names one codec a column). One
 * without a codec was made before there was a choice: its pages are
 * uncompressed, and it goes on so, as its fingerprint (no --compression)
 * matched.
 */
function checkSameCodec(ck: Checkpoint, request: ExportRequest, file: string): void {
  const kept = ck.request.codec;
  if (kept === undefined || kept === request.codec) return;
  throw new UsageError(
    `the checkpoint ${checkpointPath(file)} holds ${kept === 'GZIP' ? 'GZIP-compressed' : 'uncompressed'} Parquet pages, and this export writes ${request.codec === 'GZIP' ? 'GZIP-compressed' : 'uncompressed'} ones; ` +
      'run without --resume to start again',
  );
}

/**
 * Whether a failed run has nothing worth a checkpoint: no record written yet
 * (this run or the one it resumed). Its partial file and checkpoint go, and
 * the next run starts afresh with or without --resume. A shard's checkpoint
 * stays even then: it fixes the ID range the shard was given at its start.
 */
function nothingKept(state: Checkpoint): boolean {
  return state.rows === 0 && !state.request.shard;
}

/** Removes a run's checkpoint and partial file; what cannot be removed is taken over by the next run. */
async function forget(file: string): Promise<void> {
  try {
    removeCheckpoint(file);
    await removePartial(file);
  } catch {
    // A fresh run removes both before it writes; --resume finds a checkpoint of no rows.
  }
}

/** The error to report: the cause, and how to continue when a checkpoint is kept. */
function explain(err: unknown, state: Checkpoint, target: OutputTarget | undefined, nothing: boolean): SvcError {
  const base = err instanceof SvcError ? err : new SvcError(`export failed: ${shown(err instanceof Error ? err.message : String(err), 500)}`);
  if (target?.kind !== 'file' || base.exitCode === ExitCode.usage) return base;
  const file = target.path;
  if (nothing) return new SvcError(`${base.message}; no record was written, ${shown(file)} is untouched`, base.exitCode);
  const hint = `${state.rows.toLocaleString('en-US')} rows kept in ${shown(`${file}.svc-partial`)}; ${shown(file)} is untouched; run the same command with --resume to continue (checkpoint ${shown(checkpointPath(file))})`;
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

/**
 * The pages of the rest of the range, in ID order, each made by the format's
 * digest as its records arrive: chunks fetched `concurrency` at a time.
 */
function pagesLeft<P>(job: ExportJob, state: Checkpoint, query: PageQuery, density: Density | undefined, newDigest: () => Digest<P>): AsyncGenerator<Page<P>> {
  const range = state.range;
  const chunker = createChunker(range, range.last, job.pageSize, density);
  const onShrink = (size: number): void => job.warn(`a page kept failing; asking again with ${size} records a page`);
  const next = (): Producer<Page<P>> | undefined => {
    const chunk = chunker.next();
    if (!chunk) return undefined;
    return async function* chunkPages(signal) {
      let rows = 0;
      for await (const page of pagesOf(job.fetch, query, chunk, chunk.after, { pageSize: job.pageSize, signal, onShrink }, newDigest)) {
        rows += page.count;
        yield page;
      }
      chunker.observe(chunk, rows);
    };
  };
  return inOrder(next, { running: job.concurrency, window: WINDOW * job.concurrency, depth: DEPTH, signal: job.signal });
}

/**
 * Runs an export to its end; throws an SvcError (exit 1, or 130 when
 * interrupted) otherwise. A file target is locked for the whole run: a second
 * export to it refuses at once (exit 1, naming the holder's pid and the lock).
 */
export async function runExport(job: ExportJob): Promise<ExportResult> {
  const lock = lockTarget(job.target, job.command, job.processes, job.now);
  try {
    return await exportAll(job, lock);
  } finally {
    lock?.release();
  }
}

async function exportAll(job: ExportJob, lock: HeldLock | undefined): Promise<ExportResult> {
  const manifest = job.manifest && job.target?.kind === 'file' ? createManifestWriter(job.target) : undefined;
  const { state, sink, resumed } = await begin(job, lock, manifest);
  const file = job.target?.kind === 'file' ? job.target.path : undefined;
  const req = state.request;
  const sel = idSelection(req.fields);
  const query: PageQuery = { filterMember: req.filterMember, ...(req.filter ? { filter: req.filter } : {}), ...(req.search ? { search: req.search } : {}), ...(sel.fields ? { fields: sel.fields } : {}), idKey: sel.idKey };
  countLeft(job, state);
  let savedAt = job.now();
  let savedBytes = state.bytes;
  let sha256: string;
  try {
    const writer: FormatWriter<unknown> =
      req.format === 'parquet' ? await (await import('./parquet/writer.js')).createParquetWriter(state, sink, sel.idKey) : textWriter(state, sink, sel);
    if (sink.bytes === 0) await writer.head();
    const density = await densityOf(job, state);
    for await (const page of pagesLeft(job, state, query, density, () => writer.newDigest())) {
      await writer.page(page);
      // Saved when the file holds more than the last checkpoint says (a Parquet row group, or a text page).
      if (file && state.bytes !== savedBytes && job.now() - savedAt >= (job.checkpointEveryMs ?? CHECKPOINT_EVERY_MS)) {
        checkLock(lock, file);
        await sink.flush();
        saveCheckpoint(file, state);
        savedAt = job.now();
        savedBytes = state.bytes;
      }
      job.progress?.update(writer.seen);
    }
    await writer.end();
    // The manifest is written and synced before the file is renamed into place (ManifestWriter: the order).
    if (file && manifest && job.target) await manifest.stage(manifestOf(job.target.given, job, state, sink), partialPath(file));
    sha256 = await sink.commit();
  } catch (err) {
    job.progress?.clear();
    manifest?.discard();
    const nothing = nothingKept(state);
    if (file && lock?.isHeld() && !nothing) await keepCheckpoint(file, sink, state);
    await sink.close();
    if (file && lock?.isHeld() && nothing) await forget(file);
    throw explain(err, state, job.target, nothing);
  }
  // The file is in place: what fails from here is said as such, never as a run to resume.
  job.progress?.clear();
  if (file) {
    try {
      removeCheckpoint(file);
    } catch (err) {
      throw new SvcError(`${shown(job.target?.given ?? file)} is in place (${state.rows.toLocaleString('en-US')} rows), but its checkpoint ${shown(checkpointPath(file))} could not be removed: ${ioReason(err)}; remove it by hand`);
    }
  }
  await manifest?.place(state.rows);
  return { rows: state.rows, bytes: sink.bytes, sha256, resumed };
}

/** A text format (csv, ndjson, json): each page is written as it comes, and the state follows it. */
function textWriter(state: Checkpoint, sink: Sink, sel: { idKey: string; strip: boolean }): FormatWriter<Buffer> {
  const encoder = createEncoder(state.request);
  const encode = (row: Row): string => encoder.record(sel.strip ? withoutKey(row, sel.idKey) : row);
  return {
    get seen() {
      return state.rows;
    },
    newDigest() {
      const bytes = new ByteBuilder();
      return { add: (row) => bytes.append(encode(row)), finish: () => bytes.bytes() };
    },
    head: () => sink.write(encoder.head()),
    async page(page) {
      await sink.write(state.rows === 0 ? encoder.first(page.item) : page.item);
      state.rows += page.count;
      state.bytes = sink.bytes;
      state.partialSha256 = sink.digestSoFar();
      state.range.last = page.last;
    },
    end: () => sink.write(encoder.tail(state.rows)),
  };
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

/** The manifest of the finished export (every byte written, not yet renamed), for beside the name the user gave. */
function manifestOf(given: string, job: ExportJob, state: Checkpoint, sink: Sink): Manifest {
  const endedAt = new Date(job.now()).toISOString();
  return buildManifest(given, state.request, { rows: state.rows, bytes: sink.bytes, sha256: sink.digestSoFar(), startedAt: state.startedAt, endedAt });
}

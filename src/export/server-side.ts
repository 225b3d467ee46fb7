/**
 * `--server-side`: the service's own CSV export (`export: true`, admins only,
 * `;` between values) streamed from the response body to the sink as it
 * arrives, never held whole. Not resumable: a failure removes the partial file
 * and leaves the target untouched.
 */
import { stat } from 'node:fs/promises';
import type { OutStream } from '../output/io.js';
import { SvcError } from '../errors.js';
import type { LockProcesses } from '../util/file-lock.js';
import { openFileSink, partialPath, removePartial } from './atomic-file.js';
import { stdoutSink, type Sink } from './sink.js';
import { openStreamSink } from './stream-sink.js';
import { buildManifest, createManifestWriter, dropManifests, type ManifestWriter } from './manifest.js';
import type { ExportRequest } from './plan.js';
import { lockTarget } from './export-lock.js';
import type { OutputTarget } from './target.js';

export interface ServerSideJob {
  readonly request: ExportRequest;
  /** Where to write (see resolveOutput); absent: standard output. */
  readonly target?: OutputTarget;
  /** The command line, named in the lock for others to read. */
  readonly command: string;
  readonly processes?: LockProcesses;
  readonly manifest: boolean;
  /** Sends the body and answers with the response body as a stream. */
  readonly open: (body: Record<string, unknown>) => Promise<AsyncIterable<Buffer | string>>;
  readonly stdout: OutStream;
  readonly signal: AbortSignal;
  readonly now: () => number;
}

/** Counts CSV records (line ends outside quotes), chunk by chunk. */
export function createRecordCounter(): { feed(text: string): void; readonly records: number } {
  let quoted = false;
  let records = 0;
  let pending = false;
  return {
    feed(text) {
      for (let i = 0; i < text.length; i++) {
        const ch = text.charCodeAt(i);
        if (ch === 34) quoted = !quoted;
        else if (ch === 10 && !quoted) {
          records++;
          pending = false;
          continue;
        }
        if (ch !== 13) pending = true;
      }
    },
    get records() {
      return records + (pending ? 1 : 0);
    },
  };
}

/** The body of the service's export request. */
export function serverSideBody(req: ExportRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { export: true, sort: ['+ID'] };
  if (req.filter) body[req.filterMember] = req.filter;
  if (req.search) body.query = req.search;
  if (req.fields) body.fields = req.fields;
  return body;
}

async function openSink(job: ServerSideJob, manifest: ManifestWriter | undefined): Promise<Sink> {
  const { target, signal } = job;
  if (!target || target.kind === 'stdout') return stdoutSink(job.stdout, signal);
  if (target.kind !== 'file') return openStreamSink(target.path, target.fifo, signal);
  // The new file keeps the permissions of the one it replaces (a private export stays private), and its rename first removes that file's manifests (with --manifest or not).
  const mode = await stat(target.path).then((st) => st.mode & 0o7777, () => undefined);
  return openFileSink(target.path, { signal, beforeRename: () => (manifest ? manifest.dropOld() : dropManifests(target).then(() => undefined)), ...(mode === undefined ? {} : { mode }) });
}

/** Streams the service's CSV export to the target (atomically) or stdout; answers rows (header excluded) and sha256. */
export async function runServerSide(job: ServerSideJob): Promise<{ rows: number; bytes: number; sha256: string }> {
  const lock = lockTarget(job.target, job.command, job.processes, job.now);
  try {
    return await streamAll(job);
  } finally {
    lock?.release();
  }
}

async function streamAll(job: ServerSideJob): Promise<{ rows: number; bytes: number; sha256: string }> {
  const startedAt = new Date(job.now()).toISOString();
  const file = job.target?.kind === 'file' ? job.target.path : undefined;
  if (file) await removePartial(file);
  const manifest = job.manifest && job.target?.kind === 'file' ? createManifestWriter(job.target) : undefined;
  const sink = await openSink(job, manifest);
  const counter = createRecordCounter();
  const decoder = new TextDecoder('utf-8');
  let rows: number;
  let sha256: string;
  try {
    const stream = await job.open(serverSideBody(job.request));
    for await (const chunk of stream) {
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      counter.feed(text);
      await sink.write(text);
    }
    const rest = decoder.decode();
    counter.feed(rest);
    await sink.write(rest);
    rows = Math.max(0, counter.records - 1);
    // The manifest is written and synced before the file is renamed into place (ManifestWriter: the order).
    if (file && manifest && job.target) {
      const endedAt = new Date(job.now()).toISOString();
      const given = job.target.given;
      await manifest.stage(buildManifest(given, job.request, { rows, bytes: sink.bytes, sha256: sink.digestSoFar(), startedAt, endedAt, serverSide: true }), partialPath(file));
    }
    sha256 = await sink.commit();
  } catch (err) {
    manifest?.discard();
    await sink.close();
    if (file) await removePartial(file);
    if (err instanceof SvcError || !file) throw err;
    throw new SvcError(`server-side export failed: ${err instanceof Error ? err.message : String(err)}; ${file} is untouched`);
  }
  // The file is in place: a manifest that cannot follow is said as such.
  await manifest?.place(rows);
  return { rows, bytes: sink.bytes, sha256 };
}

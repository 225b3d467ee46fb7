/**
 * A regular file as an export's target: the export is written to
 * `FILE.svc-partial` beside it; `commit` cuts it to the bytes written,
 * flushes it to disk (fsync), renames it over the target and syncs the
 * directory, so a reader sees the old file or the whole new one, never half.
 * A resumed export continues the partial file after checking its prefix.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SvcError, UsageError } from '../errors.js';
import { writeFailed } from '../util/io-error.js';
import { shown } from '../util/shown.js';
import { createSink, writeAll, type Device, type Sink } from './sink.js';

/** `FILE.svc-partial` */
export function partialPath(target: string): string {
  return `${target}.svc-partial`;
}

/** The sha256 state of a file's first `bytes` bytes. */
async function hashPrefix(path: string, bytes: number): Promise<Hash> {
  const hash = createHash('sha256');
  if (bytes === 0) return hash;
  for await (const chunk of createReadStream(path, { start: 0, end: bytes - 1 })) hash.update(chunk as Buffer);
  return hash;
}

export interface FileSinkOptions {
  /** Continue the existing partial file, cut back to `bytes`, whose sha256 must be `sha256`. */
  readonly resume?: { readonly bytes: number; readonly sha256: string };
  /** The file's permission bits (those of the file it replaces); default: as the umask makes a new file. */
  readonly mode?: number;
  readonly signal: AbortSignal;
  /** Called just before the rename, once the partial file is known to be this run's; throws to stop it (the export's lock is gone). */
  readonly beforeRename?: () => void | Promise<void>;
}

/**
 * A sink writing to the partial file of `target` (a regular file's path): a
 * new one, or (with `resumeAt`) the existing one cut back to that many bytes
 * and continued.
 */
export async function openFileSink(target: string, opts: FileSinkOptions): Promise<Sink> {
  const path = partialPath(target);
  const resumeAt = opts.resume?.bytes;
  let fh: FileHandle;
  let hash: Hash | undefined;
  try {
    if (opts.resume) {
      const size = await stat(path).then((s) => s.size, () => -1);
      if (size < opts.resume.bytes) {
        throw new UsageError(`the partial file ${shown(path)} is missing or shorter than its checkpoint says; run without --resume to start again`);
      }
      hash = await hashPrefix(path, opts.resume.bytes);
      if (hash.copy().digest('hex') !== opts.resume.sha256) {
        throw new UsageError(`the partial file ${shown(path)} no longer holds what its checkpoint says (changed or damaged); run without --resume to start again`);
      }
      fh = await open(path, 'r+');
      await fh.truncate(opts.resume.bytes);
    } else {
      fh = await open(path, 'w');
      if (opts.mode !== undefined) await fh.chmod(opts.mode);
    }
  } catch (err) {
    throw writeFailed(path, err);
  }
  const ino = (await fh.stat()).ino;
  let closed = false;
  const device: Device = {
    what: path,
    put: (buf, at) => writeAll(fh, buf, at),
    flush: () => fh.datasync(),
    async finish(bytes) {
      // Bytes past the end cannot be this run's (a crashed run's tail cut short by --resume is gone already).
      await fh.truncate(bytes);
      await fh.sync();
      await fh.close();
      closed = true;
      // Rename only the file this run wrote: not one someone put in its place meanwhile.
      const now = await stat(path).catch(() => undefined);
      if (now?.ino !== ino) throw new SvcError(`${shown(path)} was replaced or removed while this export ran; ${shown(target)} is untouched; run the export again`);
      await opts.beforeRename?.();
      await rename(path, target);
      await syncDir(dirname(target));
    },
    async close() {
      if (!closed) await fh.close();
      closed = true;
    },
  };
  return createSink(device, opts.signal, resumeAt ?? 0, hash);
}

/** Flushes a directory entry (the rename) to disk; some systems cannot, which is fine. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Not supported here (e.g. on Windows): the rename is still atomic.
  }
}

/** Removes a partial file (a fresh export replaces a stale one). */
export async function removePartial(target: string): Promise<void> {
  await rm(partialPath(target), { force: true });
}

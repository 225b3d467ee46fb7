/**
 * Where export bytes go. A file target is written to `FILE.svc-partial`
 * beside it; `commit` cuts it to the bytes written, flushes it to disk
 * (fsync), renames it over the target and syncs the directory, so a reader
 * sees the old file or the whole new one, never half. A character device or
 * a FIFO is written straight through, and standard output at its reader's
 * pace. Every sink hashes what it writes (sha256), refuses to write once the
 * run is aborted, and reports a failed write naming the place and the reason.
 */
import { createHash, type Hash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OutStream } from '../cli/deps.js';
import { SvcError, UsageError } from '../errors.js';
import { drained } from '../output/drain.js';
import { untilAborted } from '../util/abortable.js';
import { writeFailed } from '../util/io-error.js';

export interface Sink {
  /** Text (encoded as UTF-8) or bytes. Throws the abort's reason once the run is aborted: nothing is written after. */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Bytes written so far (including a resumed prefix). */
  readonly bytes: number;
  /** The sha256 of the bytes written so far (including a resumed prefix). */
  digestSoFar(): string;
  /** Puts what is written so far on disk (fsync), so a checkpoint saved after it holds after a power loss. */
  flush(): Promise<void>;
  /** Finishes: the file is in place. Returns the sha256 of everything written. */
  commit(): Promise<string>;
  /** Stops without committing; a partial file stays for --resume. */
  close(): Promise<void>;
}

/** What a sink writes through. */
interface Device {
  /** Names the place in messages. */
  readonly what: string;
  put(buf: Uint8Array, at: number): Promise<void>;
  flush(): Promise<void>;
  finish(bytes: number): Promise<void>;
  close(): Promise<void>;
}

/** A chunk as bytes: text is encoded as UTF-8 once, and bytes pass as they are. */
function toBytes(chunk: string | Uint8Array): Uint8Array {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

function createSink(device: Device, signal: AbortSignal, bytesBefore = 0, hash: Hash = createHash('sha256')): Sink {
  let bytes = bytesBefore;
  const failing = async (step: () => Promise<void>): Promise<void> => {
    try {
      await step();
    } catch (err) {
      throw writeFailed(device.what, err);
    }
  };
  return {
    get bytes() {
      return bytes;
    },
    digestSoFar: () => hash.copy().digest('hex'),
    async write(chunk) {
      signal.throwIfAborted();
      const buf = toBytes(chunk);
      await failing(() => device.put(buf, bytes));
      // Counted once written, so `bytes` and the digest always describe the same prefix.
      hash.update(buf);
      bytes += buf.length;
    },
    flush: () => failing(() => device.flush()),
    async commit() {
      signal.throwIfAborted();
      await failing(() => device.finish(bytes));
      return hash.digest('hex');
    },
    close: () => device.close(),
  };
}

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

async function writeAll(fh: FileHandle, buf: Uint8Array, at: number | null): Promise<void> {
  let done = 0;
  while (done < buf.length) done += (await fh.write(buf, done, buf.length - done, at === null ? null : at + done)).bytesWritten;
}

export interface FileSinkOptions {
  /** Continue the existing partial file, cut back to `bytes`, whose sha256 must be `sha256`. */
  readonly resume?: { readonly bytes: number; readonly sha256: string };
  /** The file's permission bits (those of the file it replaces); default: as the umask makes a new file. */
  readonly mode?: number;
  readonly signal: AbortSignal;
  /** Called just before the rename; throws to stop it (the export's lock is gone). */
  readonly beforeRename?: () => void;
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
        throw new UsageError(`the partial file ${path} is missing or shorter than its checkpoint says; run without --resume to start again`);
      }
      hash = await hashPrefix(path, opts.resume.bytes);
      if (hash.copy().digest('hex') !== opts.resume.sha256) {
        throw new UsageError(`the partial file ${path} no longer holds what its checkpoint says (changed or damaged); run without --resume to start again`);
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
      opts.beforeRename?.();
      // Rename only the file this run wrote: not one someone put in its place meanwhile.
      const now = await stat(path).catch(() => undefined);
      if (now?.ino !== ino) throw new SvcError(`${path} was replaced or removed while this export ran; ${target} is untouched; run the export again`);
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

/**
 * A FIFO's writer end opened without waiting when a reader is there, else
 * undefined (ENXIO). It is held until the real writer is open: closing it
 * first would leave the reader with no writer, which reads as the end.
 */
async function earlyWriter(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
    throw err;
  }
}

/**
 * Opens a character device or FIFO for writing, appending. A FIFO without a
 * reader blocks the open (as `cat > fifo` does) until one comes, after
 * `onWait` says so; an abort meanwhile opens the FIFO for reading once, which
 * lets the pending open finish, so the run can stop.
 */
async function openWriter(path: string, fifo: boolean, signal: AbortSignal, onWait: () => void): Promise<FileHandle> {
  signal.throwIfAborted();
  const early = fifo ? await earlyWriter(path) : undefined;
  if (signal.aborted) {
    await early?.close();
    signal.throwIfAborted();
  }
  if (fifo && !early) onWait();
  const pending = open(path, constants.O_WRONLY | constants.O_APPEND);
  const unblock = (): void => {
    void open(path, constants.O_RDONLY | constants.O_NONBLOCK).then(
      (reader) => pending.finally(() => reader.close()).catch(() => undefined),
      () => undefined,
    );
  };
  if (fifo) signal.addEventListener('abort', unblock, { once: true });
  try {
    const fh = await pending;
    if (signal.aborted) {
      await fh.close();
      signal.throwIfAborted();
    }
    return fh;
  } finally {
    signal.removeEventListener('abort', unblock);
    await early?.close();
  }
}

/**
 * A sink writing straight through to a character device or FIFO (no partial
 * file, no rename, no resume); `onWait` is told when a FIFO has no reader yet.
 */
export async function openStreamSink(path: string, fifo: boolean, signal: AbortSignal, onWait: () => void = () => undefined): Promise<Sink> {
  let fh: FileHandle;
  try {
    fh = await openWriter(path, fifo, signal, onWait);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw writeFailed(path, err);
  }
  let closed = false;
  let writing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    // A write stuck on a reader that stopped reading cannot be cut short; closing would wait for it.
    if (writing) void writing.finally(() => fh.close()).catch(() => undefined);
    else await fh.close();
  };
  const put = async (buf: Uint8Array): Promise<void> => {
    writing = writeAll(fh, buf, null);
    await untilAborted(writing, signal);
    writing = undefined;
  };
  const device: Device = { what: path, put, flush: async () => undefined, finish: close, close };
  return createSink(device, signal);
}

/** A sink writing to standard output (no atomicity, no resume), at the pace of its reader. */
export function stdoutSink(out: OutStream, signal: AbortSignal): Sink {
  const device: Device = {
    what: 'standard output',
    async put(buf) {
      if (!out.write(buf)) await drained(out, 'standard output', signal);
    },
    flush: async () => undefined,
    finish: async () => undefined,
    close: async () => undefined,
  };
  return createSink(device, signal);
}

/** Removes a partial file (a fresh export replaces a stale one). */
export async function removePartial(target: string): Promise<void> {
  await rm(partialPath(target), { force: true });
}

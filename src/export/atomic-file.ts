/**
 * Where export bytes go. A file target is written to `FILE.svc-partial`
 * beside it; `commit` flushes it to disk (fsync), renames it over the target
 * and syncs the directory, so a reader sees the old file or the whole new
 * one, never half. Every sink hashes what it writes (sha256).
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OutStream } from '../cli/deps.js';
import { UsageError } from '../errors.js';
import { drained } from '../output/drain.js';

export interface Sink {
  /** Text (encoded as UTF-8) or bytes. */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Bytes written so far (including a resumed prefix). */
  readonly bytes: number;
  /** Puts what is written so far on disk (fsync), so a checkpoint saved after it holds after a power loss. */
  flush(): Promise<void>;
  /** Finishes: the file is in place. Returns the sha256 of everything written. */
  commit(): Promise<string>;
  /** Stops without committing; the partial file stays for --resume. */
  close(): Promise<void>;
}

/** A chunk as bytes: text is encoded as UTF-8 once, and bytes pass as they are. */
function toBytes(chunk: string | Uint8Array): Uint8Array {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
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

/**
 * A sink writing to the partial file of `target`: a new one, or (with
 * `resumeAt`) the existing one cut back to that many bytes and continued.
 */
export async function openFileSink(target: string, resumeAt?: number): Promise<Sink> {
  const path = partialPath(target);
  let fh: FileHandle;
  let hash: Hash;
  let bytes = 0;
  if (resumeAt !== undefined) {
    const size = await stat(path).then((s) => s.size, () => -1);
    if (size < resumeAt) {
      throw new UsageError(`the partial file ${path} is missing or shorter than its checkpoint says; run without --resume to start again`);
    }
    hash = await hashPrefix(path, resumeAt);
    fh = await open(path, 'r+');
    await fh.truncate(resumeAt);
    bytes = resumeAt;
  } else {
    hash = createHash('sha256');
    fh = await open(path, 'w');
  }
  let closed = false;
  return {
    get bytes() {
      return bytes;
    },
    async write(chunk) {
      const buf = toBytes(chunk);
      hash.update(buf);
      let done = 0;
      while (done < buf.length) done += (await fh.write(buf, done, buf.length - done, bytes + done)).bytesWritten;
      bytes += buf.length;
    },
    async flush() {
      await fh.datasync();
    },
    async commit() {
      await fh.sync();
      await fh.close();
      closed = true;
      await rename(path, target);
      await syncDir(dirname(target));
      return hash.digest('hex');
    },
    async close() {
      if (!closed) await fh.close();
      closed = true;
    },
  };
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

/** A sink writing to standard output (no atomicity, no resume), at the pace of its reader. */
export function stdoutSink(out: OutStream): Sink {
  const hash = createHash('sha256');
  let bytes = 0;
  return {
    get bytes() {
      return bytes;
    },
    async write(chunk) {
      const buf = toBytes(chunk);
      hash.update(buf);
      bytes += buf.length;
      if (!out.write(buf)) await drained(out);
    },
    flush: async () => undefined,
    commit: async () => hash.digest('hex'),
    close: async () => undefined,
  };
}

/** Removes a partial file (a fresh export replaces a stale one). */
export async function removePartial(target: string): Promise<void> {
  await rm(partialPath(target), { force: true });
}

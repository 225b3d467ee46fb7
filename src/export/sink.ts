/**
 * Where export bytes go, whatever the place: a sink counts and hashes
 * (sha256) the bytes as they are written, refuses to write once the run is
 * aborted (nothing is written after an interrupt), and reports a failed write
 * naming the place and the reason. The places: a partial file renamed into
 * place (atomic-file.ts), a character device or FIFO written straight
 * through (stream-sink.ts), and standard output at its reader's pace (here).
 */
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { OutStream } from '../output/io.js';
import { drained } from '../output/drain.js';
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
export interface Device {
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

/** A sink over `device`, continuing after `bytesBefore` bytes whose sha256 state is `hash`. */
export function createSink(device: Device, signal: AbortSignal, bytesBefore = 0, hash: Hash = createHash('sha256')): Sink {
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

/** Writes all of `buf` at `at` (null: at the end of what was written). */
export async function writeAll(fh: FileHandle, buf: Uint8Array, at: number | null): Promise<void> {
  let done = 0;
  while (done < buf.length) done += (await fh.write(buf, done, buf.length - done, at === null ? null : at + done)).bytesWritten;
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

/**
 * Standard output without its stream until one is needed. Node builds
 * process.stdout on first use, and for a pipe or socket that loads net and the
 * whole stream stack: about 2 ms, 4% of `node -e 0`, spent by every command
 * that prints a screenful (help, describe, count) and then exits.
 *
 * So, when file descriptor 1 is a pipe, socket or regular file, writes go
 * straight to it (fs.writeSync, which Linux pipes do anyway: Node writes to
 * them synchronously). Anything the direct path cannot do falls to the real
 * stream, which then serves every later write, in order:
 * - a terminal (colours, width, raw mode): the stream from the start;
 * - a write that fails or would block (EAGAIN on a non-blocking pipe, EPIPE,
 *   ENOSPC): what is left of it goes to the stream, which reports the error
 *   the way it always has (a closed pipe ends svc quietly, a full disk in words);
 * - waiting for 'drain', or asking for the stream's error state: streamed
 *   output (export, query --all) gets the stream and its back-pressure;
 * - output to a pipe or socket past DIRECT_BYTES: a blocking write(2) that nobody reads
 *   holds the main thread, so a SIGTERM handler could not run until the
 *   reader read again (for ever, if it never does). A pipe empty when svc
 *   starts takes 64 KiB without blocking; past a screenful the stream
 *   (non-blocking, with back-pressure) takes every later write.
 */
import { fstatSync, writeSync } from 'node:fs';
import type { OutStream } from '../output/io.js';

/** The most written straight to the descriptor: help and describe fit; a pipe takes 64 KiB before a write blocks. */
const DIRECT_BYTES = 32 * 1024;

/** OutStream of a file descriptor that builds `stream()` only when it must. */
export function lazyOutput(fd: number, stream: () => OutStream): OutStream {
  let real: OutStream | undefined;
  let directBytes = 0;
  const toStream = (): OutStream => (real ??= stream());
  let plain: boolean | undefined;
  /** A pipe or socket, whose reader may stop reading (a regular file never holds a write for long). */
  let reader = false;
  // A pipe, socket or file; not a terminal (nor a device, nor a descriptor fstat cannot see).
  const isPlain = (): boolean => {
    if (plain === undefined) {
      try {
        const s = fstatSync(fd);
        reader = s.isFIFO() || s.isSocket();
        plain = reader || s.isFile();
      } catch {
        plain = false;
      }
    }
    return plain;
  };
  const direct = (chunk: string | Uint8Array): boolean => {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (reader && (directBytes += bytes.length) > DIRECT_BYTES) return toStream().write(bytes);
    while (bytes.length > 0) {
      let n: number;
      try {
        n = writeSync(fd, bytes);
      } catch {
        return toStream().write(bytes);
      }
      bytes = bytes.subarray(n);
    }
    return true;
  };
  return {
    write: (chunk) => (real || !isPlain() ? toStream().write(chunk) : direct(chunk)),
    once: (event, listener) => toStream().once?.(event, listener),
    removeListener: (event, listener) => toStream().removeListener?.(event, listener),
    get writableErrored() {
      return real?.writableErrored;
    },
    get destroyed() {
      return real?.destroyed;
    },
    get isTTY() {
      return isPlain() ? false : toStream().isTTY;
    },
    get columns() {
      return isPlain() ? undefined : toStream().columns;
    },
  };
}

/** Streams whose writes are held, in order across both, until `release` writes them (or they are dropped). */
export interface HeldOutputs {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** Writes what was held, in the order it came, and lets later writes through. */
  release(): void;
}

/**
 * What a command line prints, held until it has run: the help build (help-build.ts) hands a line it cannot
 * finish to the whole program, which must be the first to print anything. Help is a few kilobytes.
 */
export function holdOutputs(stdout: OutStream, stderr: OutStream): HeldOutputs {
  let queue: [OutStream, string | Uint8Array][] | undefined = [];
  const held = (out: OutStream): OutStream => ({
    write: (chunk) => (queue ? (queue.push([out, chunk]), true) : out.write(chunk)),
    once: (event, listener) => out.once?.(event, listener),
    removeListener: (event, listener) => out.removeListener?.(event, listener),
    get writableErrored() {
      return out.writableErrored;
    },
    get destroyed() {
      return out.destroyed;
    },
    get isTTY() {
      return out.isTTY;
    },
    get columns() {
      return out.columns;
    },
  });
  return {
    stdout: held(stdout),
    stderr: held(stderr),
    release() {
      const pending = queue ?? [];
      queue = undefined;
      for (const [out, chunk] of pending) out.write(chunk);
    },
  };
}

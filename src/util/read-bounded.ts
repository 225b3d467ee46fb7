/**
 * A file named on the command line, read without blocking the process: a
 * regular file or a device (`/dev/stdin` on a terminal) through Node's
 * asynchronous reads, a FIFO or a process substitution (`<(producer)`) as a
 * pipe. So Ctrl-C and SIGTERM act at once while it is read, a device such as
 * /dev/zero is not read past `maxBytes`, and a pipe that goes quiet for
 * `waitMs` (one nobody opened for writing, or a producer that stalled) ends
 * the read instead of holding svc forever. A FIFO's open would block until a
 * writer comes, in a thread no timer can stop: it is opened without waiting
 * (as the token file's FIFO is, src/auth/chain.ts).
 */
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** Why a read stopped short: more than `maxBytes`, or a pipe quiet for `waitMs` (`received` bytes had come). */
export class ReadBoundError extends Error {
  constructor(
    readonly reason: 'too-large' | 'quiet',
    readonly received: number,
  ) {
    super(reason === 'too-large' ? 'more than the limit' : 'the pipe went quiet');
    this.name = 'ReadBoundError';
  }
}

export interface ReadBounds {
  /** The most bytes read; past it, a ReadBoundError('too-large'). */
  readonly maxBytes: number;
  /** How long a pipe may give nothing (before its first byte, or between two) before a ReadBoundError('quiet'); absent: as long as it takes (Ctrl-C ends it). */
  readonly waitMs?: number;
  /** Told once when a FIFO has no writer yet (so a person knows what svc waits for). */
  readonly onWait?: () => void;
}

/**
 * The bytes of `path`, read to its end within the bounds. A failure to open
 * or read is Node's error (its `code`: ENOENT, EACCES, EISDIR, …).
 */
export async function readBounded(path: string, bounds: ReadBounds): Promise<Buffer> {
  const st = await stat(path);
  if (st.isFIFO() || st.isSocket()) return readPipe(path, bounds);
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, bounds.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > bounds.maxBytes) throw new ReadBoundError('too-large', total);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/** A FIFO (or socket file): what is written, up to its end, or an error once it is quiet for `waitMs`. */
async function readPipe(path: string, bounds: ReadBounds): Promise<Buffer> {
  const { Socket } = await import('node:net');
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const chunks: Buffer[] = [];
  let total = 0;
  if (bounds.onWait) {
    // A first read says whether a writer is there: 0 bytes, none yet (EAGAIN: one is, and has not written).
    const probe = Buffer.alloc(64 * 1024);
    let got = -1;
    try {
      got = readSync(fd, probe);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') {
        closeSync(fd);
        throw err;
      }
    }
    if (got === 0) bounds.onWait();
    if (got > 0) {
      chunks.push(probe.subarray(0, got));
      total = got;
    }
  }
  return new Promise<Buffer>((resolve, reject) => {
    let stream: InstanceType<typeof Socket>;
    try {
      stream = new Socket({ fd, readable: true, writable: false });
    } catch (err) {
      closeSync(fd);
      reject(err);
      return;
    }
    const stop = (err?: unknown): void => {
      clearTimeout(timer);
      stream.destroy();
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, total));
    };
    const timer = setTimeout(() => stop(new ReadBoundError('quiet', total)), bounds.waitMs ?? 2 ** 31 - 1);
    if (bounds.waitMs === undefined) timer.unref();
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buf.length;
      if (total > bounds.maxBytes) return stop(new ReadBoundError('too-large', total));
      chunks.push(buf);
      timer.refresh();
    });
    stream.on('end', () => stop());
    stream.on('error', (err) => stop(err));
  });
}

/**
 * A file named on the command line, opened and read without blocking the
 * process. It is opened with O_NONBLOCK (a FIFO's open would otherwise wait
 * for a writer, in a thread no signal can stop) and what it is comes from
 * the open DESCRIPTOR (fstat, never a second look at the path, which another
 * process could swap meanwhile). Then a regular file or a device other than
 * a terminal is read through Node's asynchronous reads, bounded by
 * `maxBytes` (/dev/zero never ends); a terminal (`/dev/stdin` on one) and a
 * pipe (a FIFO, `<(producer)`) through the event loop, never by a blocking
 * read in the thread pool, so Ctrl-C and SIGTERM end svc at once while
 * nobody types or writes. A pipe that goes quiet for `waitMs` ends the read
 * instead of holding svc forever. `--token-file` (src/auth/chain.ts) and
 * `import --from` open their files here too.
 */
import { close, constants, fstat, open, read, readlinkSync, readSync, type Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import { isatty } from 'node:tty';
import { promisify } from 'node:util';

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const closeAsync = promisify(close);
const readAsync = promisify(read);

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
  /** How long a pipe may give nothing (before its first byte, or between two) before a ReadBoundError('quiet'); absent: as long as it takes (Ctrl-C ends it). A terminal is never timed: a person types. */
  readonly waitMs?: number;
  /** Told once when a named FIFO has no writer yet (so a person knows what svc waits for); never for an anonymous pipe (`<(…)`), whose writer exists or existed. */
  readonly onWait?: () => void;
}

/** A file opened for reading without blocking: what it is, and its descriptor (the caller reads it, then closes it, or hands it to `inputStream`). */
export interface OpenedInput {
  readonly fd: number;
  /** fstat of the descriptor. */
  readonly stats: Stats;
  /** 'file': a regular file or a device other than a terminal (asynchronous reads); 'pipe': a FIFO or socket; 'terminal': a tty. */
  readonly kind: 'file' | 'pipe' | 'terminal';
  /** For a pipe: a named FIFO (one that may have no writer yet), not an anonymous pipe (`<(…)`, /dev/stdin on a pipe). */
  readonly namedFifo: boolean;
}

/** Whether the pipe open at `fd` is anonymous (pipefs: `<(…)`, a shell's `|`), as /proc says; elsewhere, by the name it was opened by. */
function anonymousPipe(fd: number, path: string): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith('pipe:');
  } catch {
    return /^\/dev\/(fd\/\d+|stdin)$/.test(path);
  }
}

/**
 * Opens `path` for reading without waiting (O_NONBLOCK: a FIFO without a writer opens at once; O_NOCTTY: a
 * terminal never becomes svc's controlling one) and tells what it is from the descriptor. A failure is Node's
 * error (its `code`: ENOENT, EACCES, ENXIO for a socket file, …).
 */
export async function openInput(path: string): Promise<OpenedInput> {
  const fd = await openAsync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  try {
    const stats = await fstatAsync(fd);
    const kind = stats.isFIFO() || stats.isSocket() ? 'pipe' : stats.isCharacterDevice() && isatty(fd) ? 'terminal' : 'file';
    return { fd, stats, kind, namedFifo: kind === 'pipe' && stats.isFIFO() && !anonymousPipe(fd, path) };
  } catch (err) {
    await closeAsync(fd).catch(() => undefined);
    throw err;
  }
}

/**
 * A stream of an opened input, which owns its descriptor from then on (destroying it closes it): a terminal
 * as a tty.ReadStream and a pipe as a socket, both read through the event loop; a file through
 * asynchronous reads.
 */
export async function inputStream(input: OpenedInput, highWaterMark = 64 * 1024): Promise<Readable> {
  if (input.kind === 'terminal') {
    const { ReadStream } = await import('node:tty');
    return new ReadStream(input.fd);
  }
  if (input.kind === 'pipe') {
    const { Socket } = await import('node:net');
    return new Socket({ fd: input.fd, readable: true, writable: false });
  }
  const { createReadStream } = await import('node:fs');
  return createReadStream('', { fd: input.fd, highWaterMark });
}

/**
 * The bytes of `path`, read to its end within the bounds. A failure to open
 * or read is Node's error (its `code`: ENOENT, EACCES, EISDIR, …).
 */
export async function readBounded(path: string, bounds: ReadBounds): Promise<Buffer> {
  return readOpened(await openInput(path), bounds);
}

/** The bytes of an opened input (its descriptor closed after), read to its end within the bounds. */
export async function readOpened(input: OpenedInput, bounds: ReadBounds): Promise<Buffer> {
  if (input.kind === 'file') return readFile(input.fd, bounds);
  const chunks: Buffer[] = [];
  let total = 0;
  if (input.kind === 'pipe' && input.namedFifo && bounds.onWait) {
    // A first read says whether a writer is there: 0 bytes, none (yet); EAGAIN, one is and has not written.
    const probe = Buffer.alloc(64 * 1024);
    let got = -1;
    try {
      got = readSync(input.fd, probe);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') {
        await closeAsync(input.fd).catch(() => undefined);
        throw err;
      }
    }
    if (got === 0) bounds.onWait();
    if (got > 0) {
      chunks.push(probe.subarray(0, got));
      total = got;
    }
  }
  let stream: Readable;
  try {
    stream = await inputStream(input);
  } catch (err) {
    await closeAsync(input.fd).catch(() => undefined);
    throw err;
  }
  return new Promise<Buffer>((resolve, reject) => {
    const waitMs = input.kind === 'pipe' ? bounds.waitMs : undefined;
    const stop = (err?: unknown): void => {
      clearTimeout(timer);
      stream.destroy();
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, total));
    };
    const timer = setTimeout(() => stop(new ReadBoundError('quiet', total)), waitMs ?? 2 ** 31 - 1);
    if (waitMs === undefined) timer.unref();
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

/** A regular file or a device other than a terminal: asynchronous reads up to its end, never past `maxBytes`. */
async function readFile(fd: number, bounds: ReadBounds): Promise<Buffer> {
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, bounds.maxBytes + 1 - total));
      const { bytesRead } = await readAsync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > bounds.maxBytes) throw new ReadBoundError('too-large', total);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await closeAsync(fd);
  }
}

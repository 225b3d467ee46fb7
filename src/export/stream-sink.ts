/**
 * A character device or FIFO as an export's target (/dev/null, a named
 * pipe): written straight through, appending, with no partial file, no rename
 * and no resume. A FIFO is opened as `cat > fifo` opens it: waiting for a
 * reader, after saying so, and giving up at once on an interrupt.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { untilAborted } from '../util/abortable.js';
import { writeFailed } from '../util/io-error.js';
import { createSink, writeAll, type Device, type Sink } from './sink.js';

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

/**
 * Reading the small files svc keeps in its config directory (config.json,
 * credentials.insecure.json) without ever waiting on one that is not a file.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { shown } from '../util/shown.js';

/** What a file that is not a regular file is, for messages. */
export function fileKind(st: Stats): string {
  return st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a named pipe (FIFO)' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a regular file';
}

/**
 * The bytes (and fstat) of a small file svc keeps (config.json, credentials.insecure.json), or undefined when there is
 * none. It is opened without waiting (O_NONBLOCK: a FIFO in its place opens at once) and judged by its
 * descriptor: anything but a regular file (a FIFO, a device, a link to /dev/zero) is refused by `refuse`,
 * never read, so a command never hangs in a read no signal can stop.
 */
export function readOwnFile(path: string, refuse: (why: string) => Error): { readonly bytes: Buffer; readonly stats: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw refuse(shown((err as NodeJS.ErrnoException).code ?? 'error', 40));
  }
  try {
    let st: Stats;
    try {
      st = fstatSync(fd);
    } catch (err) {
      throw refuse(shown((err as NodeJS.ErrnoException).code ?? 'error', 40));
    }
    if (!st.isFile()) throw refuse(`it is ${fileKind(st)}, not a file`);
    // One buffer of the size fstat gave (and a byte more, to see the end), grown if the file grew meanwhile.
    let buf = Buffer.allocUnsafe(Math.max(st.size + 1, 64 * 1024));
    let used = 0;
    for (;;) {
      if (used === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, used);
        buf = bigger;
      }
      let n: number;
      try {
        n = readSync(fd, buf, used, buf.length - used, null);
      } catch (err) {
        throw refuse(shown((err as NodeJS.ErrnoException).code ?? 'error', 40));
      }
      if (n === 0) break;
      used += n;
    }
    return { bytes: buf.subarray(0, used), stats: st };
  } finally {
    closeSync(fd);
  }
}

/** A leading byte-order mark (an editor's, Windows Notepad's): not part of the JSON. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

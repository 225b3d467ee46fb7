/**
 * Replacing a small file whole: the text goes to a fresh draft beside it
 * (`PATH.svc-tmp`; whatever is there, a file or a link someone put in its
 * place, is removed first, never written through), is synced, and is renamed
 * over the file. A reader sees the old file or the new one, never half of one.
 * A failure removes the draft and is reported as a write failure of `path`.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { writeFailed } from './io-error.js';

/**
 * Writes all of `text` at the file's position (or its end, for a file opened
 * to append). write(2) may write less than it was given and say so without an
 * error (a disk that fills part-way): the rest is written again, so the
 * failure, if any, is the next call's error (ENOSPC), never a short file
 * taken as whole.
 */
export function writeWhole(fd: number, text: string | Uint8Array): void {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (let at = 0; at < bytes.length; ) {
    const n = writeSync(fd, bytes, at, bytes.length - at);
    // Nothing written and no error: the device takes no more (no errno to give, so one is made).
    if (n <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    at += n;
  }
}

export function replaceFile(path: string, text: string, mode: number): void {
  const draft = `${path}.svc-tmp`;
  try {
    rmSync(draft, { force: true });
    const fd = openSync(draft, 'wx', mode);
    try {
      writeWhole(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(draft, path);
  } catch (err) {
    rmSync(draft, { force: true });
    throw writeFailed(path, err);
  }
}

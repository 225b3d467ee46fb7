/**
 * Replacing a small file whole: the text goes to a fresh draft beside it
 * (`PATH.svc-tmp`; whatever is there, a file or a link someone put in its
 * place, is removed first, never written through), is synced, and is renamed
 * over the file. A reader sees the old file or the new one, never half of one.
 * A failure removes the draft and is reported as a write failure of `path`.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { writeFailed } from './io-error.js';

export function replaceFile(path: string, text: string, mode: number): void {
  const draft = `${path}.svc-tmp`;
  try {
    rmSync(draft, { force: true });
    const fd = openSync(draft, 'wx', mode);
    try {
      writeSync(fd, text);
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

/**
 * The results file of a bulk write (`--results FILE`): NDJSON, one line per
 * row as it finishes, each written with one write(2) at once (so a crash of
 * svc keeps every line written) and synced to disk at most once a second and
 * at the end. Before an import sends a create it writes a `sending` line for
 * the row, so a run killed while a create was in flight leaves a trace that
 * `--resume` finds (the create may or may not have happened). A run that ends
 * (done, failed or interrupted, not killed) rewrites the file to one line per
 * row, in input order, without its `sending` lines.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { writeFailed } from '../util/io-error.js';

/** What happened to a row (an error beside a create or update says it failed). */
export type ResultAction = 'create' | 'update' | 'delete' | 'unchanged' | 'skip' | 'unknown';

/** One line of the results file. */
export interface ResultLine {
  /** The row's line in the input (imports); absent for bulk writes by filter. */
  readonly line?: number;
  readonly action: ResultAction;
  readonly id: number | null;
  /** The HTTP status of the write; null when nothing was answered (or sent). */
  readonly status: number | null;
  readonly etag: string | null;
  /** Why the row failed (or was skipped, or is unknown); null when it succeeded. */
  readonly error: string | null;
}

/** A results line that was read back: a finished row, or a create that was being sent. */
export type ReadLine = ResultLine | { readonly line: number; readonly action: 'sending' };

/** Whether a row's last line says it is done for good. */
export function isDone(r: ReadLine): boolean {
  return r.action !== 'sending' && r.action !== 'unknown' && r.action !== 'skip' && (r as ResultLine).error === null;
}

/** The results file's lines by input line (the last line of a row counts); a torn or foreign line is skipped. */
export function readResults(path: string): Map<number, ReadLine> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw err;
  }
  const rows = new Map<number, ReadLine>();
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      continue; // a line cut off by a power loss
    }
    const o = v as Partial<ResultLine> | null;
    if (typeof o !== 'object' || o === null || typeof o.line !== 'number' || typeof o.action !== 'string') continue;
    rows.set(o.line, o as ReadLine);
  }
  return rows;
}

/** Writes results lines as rows finish. */
export interface ResultsWriter {
  /** A row's result. */
  write(r: ResultLine): void;
  /** A create is about to be sent for this input line. */
  sending(line: number): void;
  /** Syncs and closes; with `compact`, rewrites the file to one line per row in input order. */
  close(compact: boolean): void;
}

/** Opens the results file: appended to (resume), or made empty. `now` paces the syncs. */
export function openResults(path: string, opts: { readonly append: boolean; readonly now: () => number }): ResultsWriter {
  let fd: number;
  try {
    fd = openSync(path, opts.append ? 'a' : 'w', 0o644);
  } catch (err) {
    throw writeFailed(path, err);
  }
  let lastSync = opts.now();
  const put = (text: string): void => {
    try {
      writeSync(fd, text);
      if (opts.now() - lastSync >= 1000) {
        fsyncSync(fd);
        lastSync = opts.now();
      }
    } catch (err) {
      throw writeFailed(path, err);
    }
  };
  return {
    write: (r) => put(`${JSON.stringify(r)}\n`),
    sending: (line) => put(`${JSON.stringify({ line, action: 'sending' })}\n`),
    close(compact) {
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (compact) compactResults(path);
    },
  };
}

/** Rewrites an import's results file to the last line of each row, in input order, atomically. */
function compactResults(path: string): void {
  // A row still `sending` (its outcome never settled) keeps that line, so a later --resume still sees it.
  const rows = [...readResults(path).values()].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const draft = `${path}.svc-tmp`;
  try {
    const fd = openSync(draft, 'w', statSync(path).mode & 0o777);
    try {
      writeSync(fd, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
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

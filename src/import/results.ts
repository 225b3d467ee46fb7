/**
 * The results file of a bulk write (`--results FILE`): NDJSON, one line per
 * row as it finishes, each written whole at once (so a crash of svc keeps
 * every line written; a write the disk cuts short is an error, and the part
 * of the line that got out is cut off again) and synced to disk at most once
 * a second and at the end. Before an import sends a create it writes a
 * `sending` line for the row, so a run killed while a create was in flight
 * leaves a trace that `--resume` finds (the create may or may not have
 * happened); a `sending` line that cannot be written stops the create. A run
 * that ends (done, failed or interrupted, not killed) rewrites the file to one
 * line per row, in input order, without its `sending` lines.
 */
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, lstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { SvcError, UsageError } from '../errors.js';
import { replaceFile, writeWhole } from '../util/atomic-file.js';
import { ioReason, writeFailed } from '../util/io-error.js';
import { shown } from '../util/shown.js';

/**
 * A results path must be a regular file or not exist yet: a symbolic link
 * would be written through and then replaced (compaction renames over it),
 * and a FIFO or device would block svc or never hold the results.
 */
export function checkResultsPath(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw writeFailed(path, err);
  }
  if (st.isSymbolicLink()) throw new UsageError(`--results '${shown(path)}' is a symbolic link; name the file itself (svc replaces the results file when it ends)`);
  if (!st.isFile()) throw new UsageError(`--results '${shown(path)}' is not a regular file; name a file to write the results to`);
}

/**
 * Everything about `--results` that can be known before anything is read or
 * sent: its directory exists, it is a regular file or none yet, and it is not
 * `input` (the file being imported) by any name: the same file through a
 * linked directory or a hard link is the same device and inode; nor a file
 * with a second hard link (written through, like a symbolic link). A usage error
 * (exit 2) otherwise.
 */
export function checkResultsFile(path: string, input?: string): void {
  const dir = dirname(resolve(path));
  let dirStat;
  try {
    dirStat = statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`--results ${shown(path)}: the directory ${shown(dir)} does not exist; create it or choose another file`);
    if (code === 'ENOTDIR') throw new UsageError(`--results ${shown(path)}: a part of ${shown(dir)} is not a directory; choose another file`);
    throw writeFailed(path, err);
  }
  if (!dirStat.isDirectory()) throw new UsageError(`--results ${shown(path)}: ${shown(dir)} is not a directory; choose another file`);
  checkResultsPath(path);
  if (input !== undefined && input !== '-') {
    let a;
    let b;
    try {
      a = statSync(path);
      b = statSync(input);
    } catch {
      a = undefined; // no results file yet (or no input: reading it says so)
    }
    if (a && b && a.dev === b.dev && a.ino === b.ino) throw new UsageError(`--results would overwrite the file being imported ('${shown(input)}'); name another file`);
  }
  refuseHardLink(path);
}

/** A results file with another name (a hard link): that name would be written through, then left with the run's raw lines. */
function refuseHardLink(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // none yet
  }
  if (st.nlink > 1) throw new UsageError(`--results '${shown(path)}' has ${st.nlink - 1} other name${st.nlink === 2 ? '' : 's'} (a hard link), which svc would write through; name a file of its own`);
}

const ACTIONS: ReadonlySet<string> = new Set(['create', 'update', 'delete', 'unchanged', 'skip', 'unknown']);

/** A line as svc writes it: a finished row (every member of its type) or a `sending` line; anything else is foreign. */
function readLine(v: unknown): (ReadLine & { readonly line: number }) | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (!Object.hasOwn(o, 'line') || !Number.isSafeInteger(o.line) || (o.line as number) < 1) return undefined;
  if (o.action === 'sending') return { line: o.line as number, action: 'sending' };
  if (typeof o.action !== 'string' || !ACTIONS.has(o.action)) return undefined;
  const numOrNull = (x: unknown): boolean => x === null || Number.isSafeInteger(x);
  const strOrNull = (x: unknown): boolean => x === null || typeof x === 'string';
  if (!numOrNull(o.id) || !numOrNull(o.status) || !strOrNull(o.etag) || !strOrNull(o.error)) return undefined;
  return { line: o.line as number, action: o.action as ResultAction, id: o.id as number | null, status: o.status as number | null, etag: o.etag as string | null, error: o.error as string | null };
}

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
  checkResultsPath(path);
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
    const r = readLine(v);
    if (r) rows.set(r.line, r);
  }
  return rows;
}

/** Writes results lines as rows finish. */
export interface ResultsWriter {
  /** A row's result. */
  write(r: ResultLine): void;
  /** A create is about to be sent for this input line (throws when the line cannot be written: then send nothing). */
  sending(line: number): void;
  /** Syncs and closes (an import then compacts the file: compactResults). */
  close(): void;
}

/**
 * The results file could not be written (a full disk): the run stops, and
 * its summary says what was done. The message names the file and why, and
 * leaves what to do to the command.
 */
export class ResultsWriteError extends SvcError {
  /** What to do before running again, e.g. "free some space". */
  readonly fix: string;
  constructor(path: string, err: unknown) {
    super(`cannot write to ${shown(path)}: ${ioReason(err)}`);
    const code = (err as NodeJS.ErrnoException)?.code ?? '';
    this.fix = code === 'ENOSPC' || code === 'EDQUOT' ? 'free some space' : code === 'EIO' ? 'check the device' : 'make it writable';
  }
}

/** Whether the file's last byte (of `size`) is a line feed. */
function endsWithLineFeed(fd: number, size: number): boolean {
  const b = Buffer.alloc(1);
  return readSync(fd, b, 0, 1, size - 1) === 1 && b[0] === 0x0a;
}

/**
 * Opens the results file: appended to (resume), or made empty. `now` paces
 * the syncs. A new file gets the permissions the umask gives, as an export's
 * file does (it holds rows' outcomes, as the export holds records).
 */
export function openResults(path: string, opts: { readonly append: boolean; readonly now: () => number }): ResultsWriter {
  checkResultsPath(path);
  let fd: number;
  try {
    // O_NOFOLLOW and O_NONBLOCK: a link or FIFO put there since the check is refused, not followed or waited on.
    const mode = opts.append ? constants.O_APPEND : constants.O_TRUNC;
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | mode | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (err) {
    throw writeFailed(path, err);
  }
  /** The bytes known to be whole lines: a write that fails is cut back to here. */
  let size: number;
  try {
    size = fstatSync(fd).size;
    // A line an earlier run left without its end (cut short): end it, so the next line is not glued to it.
    if (opts.append && size > 0 && !endsWithLineFeed(fd, size)) {
      writeWhole(fd, '\n');
      size++;
    }
  } catch (err) {
    closeSync(fd);
    throw writeFailed(path, err);
  }
  let lastSync = opts.now();
  let broken: ResultsWriteError | undefined;
  const put = (text: string): void => {
    // After a failed write nothing more is written: a line after a cut one could be lost with it.
    if (broken) throw broken;
    try {
      writeWhole(fd, text);
      size += Buffer.byteLength(text);
      if (opts.now() - lastSync >= 1000) {
        fsyncSync(fd);
        lastSync = opts.now();
      }
    } catch (err) {
      try {
        ftruncateSync(fd, size);
      } catch {
        // The torn line is skipped when read, and the next run ends it first.
      }
      broken = new ResultsWriteError(path, err);
      throw broken;
    }
  };
  return {
    write: (r) => put(`${JSON.stringify(r)}\n`),
    sending: (line) => put(`${JSON.stringify({ line, action: 'sending' })}\n`),
    close() {
      try {
        fsyncSync(fd);
      } catch (err) {
        if (!broken) throw new ResultsWriteError(path, err);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Rewrites an import's results file to the last line of each row, in input order, atomically (or leaves it as it was). */
export function compactResults(path: string): void {
  // A row still `sending` (its outcome never settled) keeps that line, so a later --resume still sees it.
  const rows = [...readResults(path).values()].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  replaceFile(path, rows.map((r) => `${JSON.stringify(r)}\n`).join(''), statSync(path).mode & 0o777);
}

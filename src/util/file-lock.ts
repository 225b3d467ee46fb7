/**
 * A lock file that says who holds it: `PATH` holds JSON naming the holder's
 * pid, host and start. It is created whole or not at all (written beside it,
 * then hard-linked into place, which fails when the name exists), so two
 * processes can never both hold it. A lock whose holder is gone (same host,
 * pid no longer running) is taken over at once; the take-over moves the dead
 * holder's file aside and checks by inode that it moved that one, not a lock
 * someone made meanwhile. A lock from another host is never taken over (svc
 * cannot see its processes), nor one whose pid now belongs to an unrelated
 * process: the message names the pid and the file, so a person can decide.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, lstatSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, resolve } from 'node:path';
import { SvcError, UsageError } from '../errors.js';
import { writeWhole } from './atomic-file.js';
import { atExit } from './exit-hooks.js';
import { writeFailed } from './io-error.js';
import { shown } from './shown.js';

/** A lock file larger than this is not one svc wrote: its holder is unknown, and it is not read. */
const MAX_LOCK_BYTES = 64 * 1024;

/** What svc knows of processes on this machine (from Deps.processes). */
export interface LockProcesses {
  /** This process's id. */
  readonly pid: number;
  /** Whether a process with this id runs (a zombie does not). */
  isAlive(pid: number): boolean;
}

/** What a lock needs of a process control (its pid, and whether another pid runs), when there is one. */
export function lockProcessesOf(p: { readonly pid: number; kill(pid: number, signal: 0): boolean } | undefined): LockProcesses | undefined {
  return p ? { pid: p.pid, isAlive: (pid) => p.kill(pid, 0) } : undefined;
}

/** The holder, as written in the lock file. */
export interface LockOwner {
  readonly pid: number | null;
  readonly host: string;
  /** When the lock was taken (ISO 8601). */
  readonly since: string;
  /** What holds it, for messages (e.g. the command line). */
  readonly what: string;
}

export interface HeldLock {
  readonly path: string;
  /** Whether the lock file is still the one this process made (nobody removed or replaced it). */
  isHeld(): boolean;
  /** Removes the lock file if it is still this process's. */
  release(): void;
}

/** The lock is held by a live process (exit 1). */
export class LockedError extends SvcError {
  constructor(
    message: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(message);
  }
}

/** The holder a lock file names, if it is a regular file svc could have written; never follows or reads anything else. */
function readOwner(path: string): { owner: LockOwner | undefined; ino: number } | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // A link, FIFO, directory or huge file is a lock all the same, whose holder svc cannot name.
  if (!st.isFile() || st.size > MAX_LOCK_BYTES) return { owner: undefined, ino: st.ino };
  try {
    return { owner: asOwner(JSON.parse(readFileSync(path, 'utf8'))), ino: st.ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { owner: undefined, ino: st.ino };
  }
}

/** The owner a parsed lock file names, or undefined when any member is missing or wrong. */
function asOwner(v: unknown): LockOwner | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const pidOk = o.pid === null || (typeof o.pid === 'number' && Number.isSafeInteger(o.pid) && o.pid > 0);
  if (!pidOk || typeof o.host !== 'string' || typeof o.since !== 'string' || typeof o.what !== 'string') return undefined;
  return { pid: o.pid as number | null, host: o.host, since: o.since, what: o.what };
}

/** The locks this process holds now (path → inode): a lock naming this pid is live only when it is one of them. */
const mine = new Map<string, number>();

/**
 * Whether the holder is known to be gone: same host and its pid runs no
 * more, or the pid is this process's and the lock is not one it holds (a
 * dead run's whose pid came round again: pid 1 in a restarted container).
 */
function isStale(path: string, seen: { owner: LockOwner | undefined; ino: number }, procs: LockProcesses | undefined): boolean {
  const { owner } = seen;
  if (!owner || owner.host !== hostname() || owner.pid === null || !procs) return false;
  if (owner.pid === procs.pid) return mine.get(resolve(path)) !== seen.ino;
  return !procs.isAlive(owner.pid);
}

/**
 * Who holds the lock at `path`, read without taking it: undefined when there
 * is no lock, or its holder is known to be gone (the next taker removes it);
 * `{ owner: undefined }` when the file does not say (not svc's, or unreadable).
 */
export function lockHolder(path: string, procs: LockProcesses | undefined): { owner: LockOwner | undefined } | undefined {
  let seen;
  try {
    seen = readOwner(path);
  } catch {
    return undefined; // the folder cannot be read: neither can the target, which says so
  }
  if (!seen || isStale(path, seen, procs)) return undefined;
  return { owner: seen.owner };
}

/** The holder, for messages: "pid 42 on host ('svc …', since …)"; the host only when it is another machine. */
export function describeOwner(owner: LockOwner | undefined): string {
  if (!owner) return 'another process; the lock file does not say which: remove it if no export is running';
  const where = owner.host === hostname() ? '' : ` on ${shown(owner.host, 100)}`;
  return `pid ${owner.pid ?? 'unknown'}${where} ('${shown(owner.what)}', since ${shown(owner.since, 40)})`;
}

/**
 * Takes the lock at `path` for `what`, or throws a LockedError whose message
 * `refusal` makes from the holder and the lock file ("pid 42 ('svc …', since
 * …); lock FILE.svc-lock"), saying what the user can do. A lock file that
 * names no holder (not one svc wrote: unreadable, a directory, damaged) does
 * not show that anything runs: `unnamed` words that case from the lock file's
 * name (default: `refusal`, the holder said to be unknown, in an export's words).
 */
export function acquireLock(
  path: string,
  what: string,
  procs: LockProcesses | undefined,
  now: () => number,
  refusal: (holder: string) => string,
  unnamed: (lock: string) => string = (lock) => refusal(`${describeOwner(undefined)}; lock ${lock}`),
): HeldLock {
  const owner: LockOwner = { pid: procs?.pid ?? null, host: hostname(), since: new Date(now()).toISOString(), what };
  refuseLongName(path);
  const draft = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeDurably(draft, `${JSON.stringify(owner)}\n`);
  } catch (err) {
    removeQuietly(draft);
    throw Object.assign(writeFailed(path, err), { code: (err as NodeJS.ErrnoException).code });
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(draft, path);
        return heldLock(path, lstatSync(path).ino);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw writeFailed(path, err);
      }
      const seen = readOwner(path);
      if (!seen) continue; // released meanwhile: try again
      if (!isStale(path, seen, procs)) {
        throw new LockedError(seen.owner ? refusal(`${describeOwner(seen.owner)}; lock ${shown(path)}`) : unnamed(shown(path)), seen.owner);
      }
      takeOver(path, seen.ino);
    }
    throw new LockedError(`the lock ${shown(path)} keeps changing hands; try again`, undefined);
  } finally {
    removeQuietly(draft);
  }
}

/** The longest file name most file systems take, in bytes. */
const MAX_NAME_BYTES = 255;
/** What a lock's side files add to its name: `.<12 hex>.stale` when a dead holder's lock is set aside (a draft's `.tmp` is shorter). */
const SIDE_BYTES = 1 + 12 + '.stale'.length;

/**
 * A lock whose side files would pass the file system's name limit works until its holder dies, and then can
 * never be taken over: such a name is refused at once (exit 2), naming the file the lock is for (FILE of
 * FILE.svc-lock) and the longest name that works.
 */
function refuseLongName(path: string): void {
  const name = basename(path);
  if (Buffer.byteLength(name) + SIDE_BYTES <= MAX_NAME_BYTES) return;
  const file = path.endsWith('.svc-lock') ? path.slice(0, -'.svc-lock'.length) : path;
  const room = MAX_NAME_BYTES - SIDE_BYTES - (Buffer.byteLength(name) - Buffer.byteLength(basename(file)));
  throw new UsageError(`${shown(file)}: the name is too long for the files svc keeps beside it (${shown(basename(path))} and its drafts); give a name of at most ${room} bytes`);
}

/** Removes a draft; a failure here never hides the error that brought svc here. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // what stays is a draft nobody reads
  }
}

/** Writes a new file and puts it on disk, so a lock never survives a power loss empty (the command line is private: 0600). */
function writeDurably(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeWhole(fd, text); // a short write on a full disk is an error, not a torn lock whose holder nobody can name
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Removes a dead holder's lock file, and only that one (checked by inode). */
function takeOver(path: string, ino: number): void {
  const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else took it over first
    throw err;
  }
  if (lstatSync(aside).ino !== ino) {
    // A live lock made after the dead one was moved aside by mistake: put it back.
    try {
      linkSync(aside, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  rmSync(aside, { force: true });
}

function heldLock(path: string, ino: number): HeldLock {
  const key = resolve(path);
  mine.set(key, ino);
  const isHeld = (): boolean => {
    try {
      return lstatSync(path).ino === ino;
    } catch {
      return false;
    }
  };
  const release = (): void => {
    forget();
    if (mine.get(key) === ino) mine.delete(key);
    if (isHeld()) rmSync(path, { force: true });
  };
  // A process.exit() that cuts the command short (stdout closed by its reader) removes the lock as well.
  const forget = atExit(release);
  return { path, isHeld, release };
}

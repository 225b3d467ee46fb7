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
import { linkSync, lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { SvcError } from '../errors.js';

/** What svc knows of processes on this machine (from Deps.processes). */
export interface LockProcesses {
  /** This process's id. */
  readonly pid: number;
  /** Whether a process with this id runs (a zombie does not). */
  isAlive(pid: number): boolean;
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

function readOwner(path: string): { owner: LockOwner | undefined; ino: number } | undefined {
  try {
    const ino = lstatSync(path).ino;
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    const owner = typeof parsed.host === 'string' && typeof parsed.since === 'string' ? (parsed as LockOwner) : undefined;
    return { owner, ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Unreadable or not JSON: a lock all the same, whose holder svc cannot name.
    try {
      return { owner: undefined, ino: lstatSync(path).ino };
    } catch {
      return undefined;
    }
  }
}

/** Whether the holder is known to be gone: same host and its pid runs no more. */
function isStale(owner: LockOwner | undefined, procs: LockProcesses | undefined): boolean {
  if (!owner || owner.host !== hostname() || owner.pid === null || !procs) return false;
  return owner.pid !== procs.pid && !procs.isAlive(owner.pid);
}

function describeOwner(owner: LockOwner | undefined): string {
  if (!owner) return 'another process (the lock file does not say which)';
  const where = owner.host === hostname() ? '' : ` on ${owner.host}`;
  return `pid ${owner.pid ?? 'unknown'}${where} ('${owner.what}', since ${owner.since})`;
}

/**
 * Takes the lock at `path` for `what`, or throws a LockedError whose message
 * `refusal` makes from the holder and the lock file ("pid 42 ('svc …', since
 * …); lock FILE.svc-lock"), saying what the user can do.
 */
export function acquireLock(path: string, what: string, procs: LockProcesses | undefined, now: () => number, refusal: (holder: string) => string): HeldLock {
  const owner: LockOwner = { pid: procs?.pid ?? null, host: hostname(), since: new Date(now()).toISOString(), what };
  const draft = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(draft, `${JSON.stringify(owner)}\n`, { mode: 0o644, flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(draft, path);
        return heldLock(path, lstatSync(path).ino);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const seen = readOwner(path);
      if (!seen) continue; // released meanwhile: try again
      if (!isStale(seen.owner, procs)) {
        throw new LockedError(refusal(`${describeOwner(seen.owner)}; lock ${path}`), seen.owner);
      }
      takeOver(path, seen.ino);
    }
    throw new LockedError(`the lock ${path} keeps changing hands; try again`, undefined);
  } finally {
    rmSync(draft, { force: true });
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
  const isHeld = (): boolean => {
    try {
      return lstatSync(path).ino === ino;
    } catch {
      return false;
    }
  };
  return {
    path,
    isHeld,
    release() {
      if (isHeld()) rmSync(path, { force: true });
    },
  };
}

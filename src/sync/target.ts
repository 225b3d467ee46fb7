/**
 * The --into file: its engine from its extension, and only a regular file or
 * a new name in an existing directory (a directory, link, FIFO or device is
 * refused before anything is opened). It is locked for the run: a second
 * sync into it refuses at once, naming the process that holds it.
 */
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { ioReason } from '../util/io-error.js';
import { shown } from '../util/shown.js';
import { acquireLock, lockHolder, type HeldLock, type LockOwner, type LockProcesses } from '../util/file-lock.js';
import type { SyncRunning } from './status.js';
import { engineOf } from './store.js';

/** Checks the target before it is opened: a usage error (exit 2) naming what it is otherwise; answers whether the file is there. */
export function checkTarget(path: string): boolean {
  engineOf(path);
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`--into ${shown(path)}: ${ioReason(err)}`);
    let dir;
    try {
      dir = lstatSync(dirname(path));
    } catch {
      throw new UsageError(`--into ${shown(path)}: the directory ${shown(dirname(path))} does not exist; create it first`);
    }
    if (!dir.isDirectory()) throw new UsageError(`--into ${shown(path)}: ${shown(dirname(path))} is not a directory`);
    return false;
  }
  if (st.isFile()) return true;
  const what = st.isSymbolicLink() ? 'a symbolic link (svc does not write through links: give the file it points to)' : st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : 'not a regular file';
  throw new UsageError(`--into ${shown(path)} is ${what}; give a database file`);
}

/** The lock file beside a target. */
export function syncLockPath(path: string): string {
  return `${path}.svc-lock`;
}

/** Locks the target for the run, or throws a LockedError (exit 1) naming the process that holds it. */
export function lockSyncTarget(path: string, command: string, processes: LockProcesses | undefined, now: () => number): HeldLock {
  const refusal = (holder: string): string => `another sync into ${shown(path)} is running (${holder}); wait for it to end, or stop it and run this again`;
  return acquireLock(syncLockPath(path), command, processes, now, refusal);
}

/**
 * The sync running into the target, from its lock, read without taking it:
 * null when there is none, or its holder is gone; with the holder `owner`
 * names (undefined when the lock does not say).
 */
export function runningSync(path: string, processes: LockProcesses | undefined): { running: SyncRunning; owner: LockOwner | undefined } | null {
  const held = lockHolder(syncLockPath(path), processes);
  if (!held) return null;
  const { owner } = held;
  const since = owner ? Date.parse(owner.since) : NaN;
  return {
    owner,
    running: {
      pid: owner?.pid ?? null,
      host: owner?.host ?? null,
      since: Number.isFinite(since) ? Math.floor(since / 1000) : null,
      command: owner?.what ?? null,
    },
  };
}

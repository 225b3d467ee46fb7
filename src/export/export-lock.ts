/**
 * The lock of a file export (`FILE.svc-lock`, see util/file-lock.ts): held
 * for the whole run, so a second export to the same file (an overlapping
 * cron run) refuses at once, and checked before the rename and at every
 * checkpoint, so a run whose lock was taken never replaces the file.
 */
import { SvcError } from '../errors.js';
import { acquireLock, type HeldLock, type LockProcesses } from '../util/file-lock.js';
import { shown } from '../util/shown.js';
import type { OutputTarget } from './target.js';

/** `FILE.svc-lock`: held by the export writing FILE, so a second one (an overlapping cron run) refuses at once. */
export function lockPath(target: string): string {
  return `${target}.svc-lock`;
}

/** Locks a file target for the run (nothing to lock for stdout, a device or a FIFO); throws a LockedError (exit 1) when another export holds it. */
export function lockTarget(target: OutputTarget | undefined, command: string, processes: LockProcesses | undefined, now: () => number): HeldLock | undefined {
  if (target?.kind !== 'file') return undefined;
  const refusal = (holder: string): string => `another export to ${shown(target.given)} is running (${holder}); wait for it to end, or stop it and run this command again with --resume`;
  return acquireLock(lockPath(target.path), command, processes, now, refusal);
}

/** Stops the run when its lock file was removed or replaced: another export may be writing the same partial file. */
export function checkLock(lock: HeldLock | undefined, file: string): void {
  if (lock && !lock.isHeld()) throw new SvcError(`the lock ${shown(lock.path)} was removed or taken over while this export ran; ${shown(file)} is untouched; run the export again`);
}


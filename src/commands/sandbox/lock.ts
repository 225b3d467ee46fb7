/**
 * The data dir's lock (`sandbox.lock`, src/util/file-lock.ts): `start`, `stop` and `reset` hold it while
 * they look at what runs from the data dir and change it, so two of them at once take turns: a second
 * `start` waits for the first and then finds its sandbox running, instead of starting another that fails
 * on the same database. A holder that died (SIGKILL) leaves a lock the next one takes over at once.
 *
 * The detached child `start` runs (`start --foreground` with SVC_SANDBOX_DETACHED=1) takes no lock: the
 * `start` or `reset` that spawned it holds it until it answers.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { SvcError } from '../../errors.js';
import { acquireLock, describeOwner, LockedError, lockProcessesOf, type HeldLock } from '../../util/file-lock.js';
import { shown } from '../../util/shown.js';
import type { SandboxIo } from './io.js';
import { startTimeoutMs } from './options.js';
import { sandboxFiles } from './state.js';

/** Another command may hold the lock while it seeds the largest tenant and stops a sandbox: wait that long at most. */
const LOCK_WAIT_MS = startTimeoutMs(1_000_000) + 15_000;
const LOCK_POLL_MS = 100;

/** Whether this process is the detached child of a `start` or `reset`, which holds the lock for it. */
export function isDetachedChild(io: SandboxIo): boolean {
  return io.deps.env.SVC_SANDBOX_DETACHED === '1';
}

/**
 * Takes the data dir's lock for `svc sandbox <verb>` (the data dir exists), waiting while another svc
 * command holds it (saying so once on stderr).
 */
export async function lockDataDir(dataDir: string, verb: string, io: SandboxIo): Promise<HeldLock> {
  const path = sandboxFiles(dataDir).lock;
  const procs = lockProcessesOf(io.proc);
  const deadline = Date.now() + LOCK_WAIT_MS;
  const refusal = (holder: string): string =>
    `another svc sandbox command is using ${shown(dataDir)}: ${holder}; wait for it to end, or remove the lock file if no svc sandbox command runs`;
  let told = false;
  for (;;) {
    try {
      return acquireLock(path, `svc sandbox ${verb}`, procs, io.deps.now, refusal);
    } catch (err) {
      if (!(err instanceof LockedError) || Date.now() >= deadline) throw err;
      if (!err.owner) throw new SvcError(`the lock file ${shown(path)} of the sandbox data dir is not one svc wrote; remove it if no svc sandbox command runs`);
      if (!told) io.note(`waiting for ${describeOwner(err.owner)}, which is using ${shown(dataDir)}`);
      told = true;
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
    }
  }
}

/** Whether no file can be written in the data dir (a full disk, a read-only or foreign one, /proc…): then neither can its lock. */
function cannotWriteIn(dataDir: string): boolean {
  const probe = `${sandboxFiles(dataDir).lock}.${randomBytes(6).toString('hex')}.probe`;
  let fd: number | undefined;
  try {
    fd = openSync(probe, 'wx', 0o600);
    writeSync(fd, '\n');
    return false;
  } catch (err) {
    return typeof (err as NodeJS.ErrnoException).code === 'string';
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      rmSync(probe, { force: true });
    } catch {
      // nothing was made
    }
  }
}

/**
 * Runs `work` holding the data dir's lock (none for the detached child, whose parent holds it). With
 * `unlessUnwritable` (stop), a data dir where the lock cannot be written (a full disk, a read-only one)
 * is no reason not to do the work: it goes on without the lock, as it did before there was one.
 */
export async function withDataDirLock<T>(dataDir: string, verb: string, io: SandboxIo, work: () => Promise<T>, opts: { unlessUnwritable?: boolean } = {}): Promise<T> {
  if (isDetachedChild(io)) return work();
  let lock: HeldLock;
  try {
    lock = await lockDataDir(dataDir, verb, io);
  } catch (err) {
    if (!opts.unlessUnwritable || err instanceof LockedError || !cannotWriteIn(dataDir)) throw err;
    return work();
  }
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/**
 * What `svc <family> sync` and `svc sync` read from a target without syncing:
 * the families it holds (`--status`, and `svc sync --into FILE` without
 * families, which keeps every family the file holds in step). Read-only:
 * nothing is made, not even in a file that holds no copy.
 */
import type { Context } from '../../cli/context.js';
import { SvcError, UsageError } from '../../errors.js';
import { readHeld } from '../../sync/open.js';
import type { SyncRunning } from '../../sync/status.js';
import type { HeldCopy } from '../../sync/store.js';
import { checkTarget, runningSync, syncLockPath } from '../../sync/target.js';
import { describeOwner, lockProcessesOf } from '../../util/file-lock.js';
import { shown } from '../../util/shown.js';

/** The families the target holds, by name; exit 2 (with `missing` when given) when the target is not there, or not a file svc can use. */
export async function readTarget(into: string, missing?: string): Promise<HeldCopy[]> {
  if (!checkTarget(into)) throw new UsageError(missing ?? `--into ${into} does not exist, so it holds no copy yet; make one with svc <family> sync --into ${into}`);
  return readHeld(into);
}

/** The held copy of each named family; exit 1 naming the first the target does not hold. */
export function pickHeld(into: string, held: readonly HeldCopy[], names: readonly string[]): HeldCopy[] {
  return names.map((name) => {
    const found = held.find((h) => h.state.family === name);
    if (found) return found;
    const has = held.length ? `it holds ${shown(held.map((h) => h.state.family).join(', '))}` : 'it holds none';
    throw new SvcError(`${into} holds no copy of ${name} (${has}); make one with svc ${name} sync --into ${into}`);
  });
}

/**
 * The sync running into the target, if its lock names a live holder (or one
 * svc cannot check), said on stderr too: what --status shows is then what
 * that run has committed so far.
 */
export function runningInto(into: string, ctx: Context): SyncRunning | null {
  const found = runningSync(into, lockProcessesOf(ctx.deps.processes));
  if (!found) return null;
  const who = found.owner ? `is running (${describeOwner(found.owner)})` : `may be running (${syncLockPath(into)} does not say which process holds it)`;
  ctx.deps.stderr.write(`svc: a sync into ${shown(into)} ${who}; shown is what it has committed so far\n`);
  return found.running;
}

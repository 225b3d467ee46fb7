/**
 * What `svc <family> sync` and `svc sync` read from a target without syncing:
 * the families it holds (`--status`, and `svc sync --into FILE` without
 * families, which keeps every family the file holds in step). Read-only:
 * nothing is made, not even in a file that holds no copy.
 */
import type { Context } from '../../cli/context.js';
import { SvcError, UsageError } from '../../errors.js';
import { readHeld } from '../../sync/open.js';
import type { FamilyStatus } from '../../sync/status.js';
import { FileInUseError, type HeldCopy } from '../../sync/store.js';
import { checkTarget, runningSync, syncLockPath } from '../../sync/target.js';
import { describeOwner, lockProcessesOf } from '../../util/file-lock.js';
import { shown } from '../../util/shown.js';

/** The families the target holds, by name; exit 2 (with `missing` when given) when the target is not there, or not a file svc can use. */
export async function readTarget(into: string, missing?: string): Promise<HeldCopy[]> {
  if (!checkTarget(into)) throw new UsageError(missing ?? `--into ${shown(into)} does not exist, so it holds no copy yet; make one with svc <family> sync --into ${shown(into)}`);
  return readHeld(into);
}

/** The held copy of each named family; exit 1 naming the first the target does not hold. */
export function pickHeld(into: string, held: readonly HeldCopy[], names: readonly string[]): HeldCopy[] {
  return names.map((name) => {
    const found = held.find((h) => h.state.family === name);
    if (found) return found;
    const has = held.length ? `it holds ${shown(held.map((h) => h.state.family).join(', '))}` : 'it holds none';
    throw new SvcError(`${shown(into)} holds no copy of ${name} (${has}); make one with svc ${name} sync --into ${shown(into)}`);
  });
}

/**
 * `--status`: each named family's status (none named: every family the
 * target holds), with the sync running into the target, if its lock names a
 * live holder (or one svc cannot check). The lock is read first, and the run
 * said on stderr: what is shown is then what it has committed so far, and a
 * file it is still making, or that its engine lets no other program read
 * while it writes (DuckDB), is said to be that run's rather than missing.
 */
export async function statusesOf(into: string, names: readonly string[], ctx: Context): Promise<FamilyStatus[]> {
  const found = runningSync(into, lockProcessesOf(ctx.deps.processes));
  const run = found && `a sync into ${shown(into)} ${found.owner ? `is running (${describeOwner(found.owner)})` : `may be running (${shown(syncLockPath(into))} does not say which process holds it)`}`;
  let held: HeldCopy[];
  try {
    held = await readTarget(into);
  } catch (err) {
    if (run && err instanceof FileInUseError) throw new SvcError(`${run}, and its engine lets no other program read the file while it writes (DuckDB); ask again when it ends`);
    throw err;
  }
  if (run) {
    const unmade = names.find((name) => !held.some((h) => h.state.family === name));
    if (unmade !== undefined) throw new SvcError(`${run}, and has committed no page of ${unmade} yet; ask again when it has`);
    ctx.deps.stderr.write(`svc: ${run}; shown is what it has committed so far\n`);
  }
  const { familyStatus } = await import('../../sync/status.js');
  return (names.length ? pickHeld(into, held, names) : held).map((h) => familyStatus(h, found?.running ?? null));
}

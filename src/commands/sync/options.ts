/** `svc sync --into TARGET FAMILY…`'s typed options and how its arguments and flags become them. */
import { findFamily, suggestFamily, type ResourceFamily } from '../../catalogue/index.js';
import type { CommandInput } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import type { SyncFlags } from '../../sync/flags.js';
import { toSyncFlags } from '../records/sync-flags.js';
import { didYouMean } from '../../util/suggest.js';
import { shown } from '../../util/shown.js';

export interface SyncAllOptions {
  /** The families named; none: every family the target holds. */
  readonly families: readonly ResourceFamily[];
  readonly sync: SyncFlags;
}

export function toSyncAllOptions(input: CommandInput): SyncAllOptions {
  const raw = input.args[0];
  const names = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
  const families: ResourceFamily[] = [];
  for (const name of names) {
    const family = findFamily(name);
    if (!family) throw new UsageError(`unknown family '${shown(name, 80)}'${didYouMean(name, suggestFamily(name))} (run 'svc resources')`);
    if (!family.operations.includes('list')) throw new UsageError(`${family.name} cannot be listed, so it cannot be synced`);
    if (families.includes(family)) throw new UsageError(`${family.name} is named twice`);
    families.push(family);
  }
  return { families, sync: toSyncFlags(input.flags) };
}

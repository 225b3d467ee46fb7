/** `svc <family> delete ID` (or `--filter EXPR`)'s typed options. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { bool, str, type CommandInput } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { parseWriteId } from '../../../records/record-id.js';
import { etagFlag } from '../etag-flag.js';
import { toByFilter, type ByFilter } from '../bulk-flags.js';

export interface DeleteOptions {
  readonly family: ResourceFamily;
  /** The record to delete; absent with --filter. */
  readonly id?: string;
  /** --yes: no question asked. */
  readonly yes: boolean;
  readonly ifMatch?: string;
  /** --dry-run: print the request (or the plan), delete nothing. */
  readonly dryRun?: boolean;
  /** --filter and what goes with it: every matching record is deleted. */
  readonly byFilter?: ByFilter;
}

/** Arguments and flags → DeleteOptions: the ID checked, or --filter. */
export function toDeleteOptions(family: ResourceFamily, { args, flags }: CommandInput): DeleteOptions {
  const ifMatch = etagFlag('--if-match', str(flags, 'ifMatch'));
  const dryRun = bool(flags, 'dryRun') ? { dryRun: true } : {};
  const byFilter = toByFilter(flags);
  const first = typeof args[0] === 'string' ? args[0] : undefined;
  if (byFilter) {
    if (ifMatch !== undefined) throw new UsageError('--filter deletes each record with the ETag it was read with; drop --if-match');
    if (first !== undefined) throw new UsageError(`give a record ID or --filter, not both (run 'svc ${family.name} delete --help')`);
    return { family, yes: byFilter.yes, byFilter, ...dryRun };
  }
  const stray = ['results', 'concurrency'].find((k) => flags[k] !== undefined);
  if (stray) throw new UsageError(`--${stray} goes with --filter (deleting every matching record); without it, give one record's ID`);
  if (first === undefined) throw new UsageError(`give the record's ID, or --filter EXPR to delete every matching record (run 'svc ${family.name} delete --help')`);
  return { family, id: parseWriteId(family, first), yes: bool(flags, 'yes'), ...(ifMatch !== undefined ? { ifMatch } : {}), ...dryRun };
}

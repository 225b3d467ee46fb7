/** `svc <family> update ID field=value…` (or `--filter EXPR field=value…`)'s typed options and how its arguments and flags become them. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { bool, str, type CommandInput } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { parseWriteId } from '../../../records/record-id.js';
import { etagFlag } from '../etag-flag.js';
import { toByFilter, type ByFilter } from '../bulk-flags.js';
import { toBodyOptions, type BodyOptions } from '../write-flags.js';

export interface UpdateOptions extends BodyOptions {
  /** The record to update; absent with --filter. */
  readonly id?: string;
  readonly ifMatch?: string;
  /** --dry-run: print the request (or the plan), write nothing. */
  readonly dryRun?: boolean;
  /** --filter and what goes with it: every matching record is updated. */
  readonly byFilter?: ByFilter;
}

/** The bulk flags given without --filter, which they belong to. */
function strayBulkFlag(flags: CommandInput['flags']): string | undefined {
  return [['yes', '--yes'], ['results', '--results'], ['concurrency', '--concurrency']].find(([k]) => flags[k as string] !== undefined && flags[k as string] !== false)?.[1];
}

/** Arguments and flags → UpdateOptions: the ID first (or --filter), then the body's checks. */
export function toUpdateOptions(family: ResourceFamily, { args, flags }: CommandInput): UpdateOptions {
  const ifMatch = etagFlag('--if-match', str(flags, 'ifMatch'));
  const dryRun = bool(flags, 'dryRun') ? { dryRun: true } : {};
  const byFilter = toByFilter(flags);
  const first = typeof args[0] === 'string' ? args[0] : undefined;
  if (byFilter) {
    if (ifMatch !== undefined) throw new UsageError('--filter writes each record with the ETag it was read with; drop --if-match');
    if (byFilter.filter.filterFiles.includes('-') && str(flags, 'dataFile') === '-') throw new UsageError('--filter-file - and --data-file - both read stdin; put one of them in a file');
    if (first !== undefined && /^\d+$/.test(first)) throw new UsageError(`give a record ID or --filter, not both (run 'svc ${family.name} update --help')`);
    const words = [...(first !== undefined ? [first] : []), ...(Array.isArray(args[1]) ? args[1].map(String) : [])];
    return { ...toBodyOptions(family, 'update', words, flags), byFilter, ...dryRun };
  }
  const stray = strayBulkFlag(flags);
  if (stray) throw new UsageError(`${stray} goes with --filter (updating every matching record); without it, give one record's ID`);
  if (first === undefined) throw new UsageError(`give the record's ID, or --filter EXPR to update every matching record (run 'svc ${family.name} update --help')`);
  const id = parseWriteId(family, first);
  return { ...toBodyOptions(family, 'update', args[1], flags), id, ...(ifMatch !== undefined ? { ifMatch } : {}), ...dryRun };
}

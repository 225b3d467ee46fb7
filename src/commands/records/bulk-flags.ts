/**
 * The flags of bulk writes as data, and their typed form: --results,
 * --concurrency, --yes, the filter of `update --filter` and `delete
 * --filter`, and --dry-run's help. Light on purpose: the verbs' command.ts
 * and options.ts import it, and they load with every start; what runs a bulk
 * write (write-bulk.ts, write-by-filter.ts) loads only when one runs.
 */
import { list, str, type CommandInput, type OptionSpec } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { parseCount } from '../../records/query-body.js';
import { toFilterFiles, type FilterOptions } from './filter-flags.js';
import { toTimeZone } from './tz-flag.js';

/** Most rows at once: a shared service is not a load test. */
export const MAX_CONCURRENCY = 16;
/** How long rows in flight may take to finish after Ctrl-C before they are cut off (SVC_BULK_GRACE changes it). */
export const GRACE_MS = 5000;

export const resultsOptionSpec: OptionSpec = { flags: '--results <file>', help: 'write one NDJSON line per record as it finishes: id, action, status, etag, error' };
export const concurrencyOptionSpec: OptionSpec = { flags: '--concurrency <n>', help: `write this many records at once (default 1, at most ${MAX_CONCURRENCY})` };
export const yesOptionSpec: OptionSpec = { flags: '-y, --yes', help: 'write without asking (required when there is no terminal)' };

/** --dry-run's help; which reads a verb still makes is said in its notes. */
export const dryRunHelp = 'print what would be sent (method, URL, headers with the token redacted, body) and send no write';

/** The filter options of update and delete, and what a bulk write takes besides. */
export const byFilterOptionSpecs: readonly OptionSpec[] = [
  { flags: '--filter <expr>', help: 'write every record matching this filter instead of one ID (repeatable: ANDed; see svc help filters)', repeatable: true },
  { flags: '--filter-json <json>', help: 'the same, a filter as the service takes it (JSON; repeatable: ANDed)', repeatable: true },
  { flags: '--filter-file <file>', help: 'the same, a JSON filter from a file (- for stdin; repeatable: ANDed)', repeatable: true },
  yesOptionSpec,
  resultsOptionSpec,
  concurrencyOptionSpec,
];

/** --results and --concurrency, typed. */
export interface BulkFlags {
  readonly results?: string;
  readonly concurrency: number;
}

export function toBulkFlags(flags: CommandInput['flags']): BulkFlags {
  const results = str(flags, 'results');
  const concurrency = str(flags, 'concurrency');
  if (results !== undefined && (results === '' || results.endsWith('/'))) throw new UsageError(`--results takes a file name, not '${shown(results)}'`);
  if (results === '-') throw new UsageError("--results takes a file name, not - (standard output): the results are a file to read back (import --resume does); give one such as ./results.ndjson");
  return { ...(results !== undefined ? { results } : {}), concurrency: concurrency ? parseCount('--concurrency', concurrency, 1, MAX_CONCURRENCY) : 1 };
}

/** A write by filter, typed. */
export interface ByFilter extends BulkFlags {
  readonly filter: FilterOptions;
  /** --yes: no question asked. */
  readonly yes: boolean;
}

/** The filter flags as a ByFilter; undefined when none is given (the verb then takes an ID). */
export function toByFilter(flags: CommandInput['flags']): ByFilter | undefined {
  const tz = toTimeZone(flags);
  const filter: FilterOptions = {
    filter: list(flags, 'filter'),
    filterJson: list(flags, 'filterJson'),
    filterFiles: toFilterFiles(flags),
    ...(tz !== undefined ? { tz } : {}),
    explain: false,
    printRequest: false,
  };
  if (filter.filter.length === 0 && filter.filterJson.length === 0 && filter.filterFiles.length === 0) return undefined;
  return { filter, yes: flags.yes === true, ...toBulkFlags(flags) };
}

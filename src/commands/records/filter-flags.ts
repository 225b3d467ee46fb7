/**
 * The filter options query, count, sum and export share (--filter,
 * --filter-json, --filter-file, --search, --tz, --explain, --print-request),
 * as data, their typed form, and the filter they make.
 */
import { readFileSync } from 'node:fs';
import type { ResourceFamily } from '../../catalogue/index.js';
import { bool, list, str, type CommandInput, type OptionSpec } from '../../cli/command.js';
import type { Context } from '../../cli/context.js';
import { readAllStdin } from '../../cli/prompt.js';
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { toTimeZone } from './tz-flag.js';

export const filterOptionSpecs: readonly OptionSpec[] = [
  { flags: '--filter <expr>', help: "a filter expression, e.g. 'type = CUSTOMER and city ~* \"^ber\"' (repeatable: ANDed; see svc help filters)", repeatable: true },
  { flags: '--filter-json <json>', help: 'a filter as the service takes it, JSON (repeatable: ANDed)', repeatable: true },
  { flags: '--filter-file <file>', help: 'a JSON filter from a file (- for stdin)' },
  { flags: '--search <text>', help: "the service's search across the family's text fields" },
  { flags: '--tz <zone>', help: "time zone for dates in filters and tables (default: this machine's), e.g. Europe/Berlin" },
  { flags: '--explain', help: 'print the compiled JSON filter and send nothing' },
  { flags: '--print-request', help: 'print the JSON body that would be sent, and send nothing' },
];

/** The filter options, typed. */
export interface FilterOptions {
  readonly filter: readonly string[];
  readonly filterJson: readonly string[];
  readonly filterFile?: string;
  readonly search?: string;
  readonly tz?: string;
  readonly explain: boolean;
  readonly printRequest: boolean;
}

/** Whether any filter flag was given (--filter, --filter-json, --filter-file, --search, --tz). */
export function filterGiven(f: FilterOptions): boolean {
  return f.filter.length > 0 || f.filterJson.length > 0 || f.filterFile !== undefined || f.search !== undefined || f.tz !== undefined;
}

export function toFilterOptions(flags: CommandInput['flags']): FilterOptions {
  const filterFile = str(flags, 'filterFile');
  const search = str(flags, 'search');
  const tz = toTimeZone(flags);
  return {
    filter: list(flags, 'filter'),
    filterJson: list(flags, 'filterJson'),
    ...(filterFile !== undefined ? { filterFile } : {}),
    ...(search !== undefined ? { search } : {}),
    ...(tz !== undefined ? { tz } : {}),
    explain: bool(flags, 'explain'),
    printRequest: bool(flags, 'printRequest'),
  };
}

function jsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not valid JSON: ${shown((err as Error).message)}`);
  }
  if (typeof value !== 'object' || value === null) throw new UsageError(`${what} must be a JSON object (or a ["AND"|"OR"|"NOT", …] array)`);
  return value as Record<string, unknown>;
}

/** The text of --filter-file (- for stdin); a file that cannot be read is a usage error naming it. */
export async function readFilterFile(file: string, ctx: Context): Promise<string> {
  if (file === '-') return readAllStdin(ctx.deps);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : code;
    throw new UsageError(`cannot read --filter-file ${shown(file)} (${why}); give a readable file of JSON, or - for standard input`);
  }
}

/** The filter from --filter (the language), --filter-json and --filter-file, all ANDed. */
export async function buildFilter(family: ResourceFamily, opts: FilterOptions, ctx: Context): Promise<Record<string, unknown> | undefined> {
  const parts: Record<string, unknown>[] = opts.filterJson.map((j) => jsonObject(j, '--filter-json'));
  if (opts.filterFile) {
    parts.push(jsonObject(await readFilterFile(opts.filterFile, ctx), `--filter-file ${opts.filterFile}`));
  }
  if (parts.length > 0) {
    // Their field keys are checked against the catalogue as --filter's are (loaded only when there is one).
    const { checkFilterJson } = await import('./filter-json.js');
    parts.forEach((p, i) => checkFilterJson(family, p, i < opts.filterJson.length ? '--filter-json' : `--filter-file ${opts.filterFile ?? ''}`));
  }
  if (opts.filter.length === 0 && parts.length <= 1) return parts[0];
  const { compileFilter, combineFilters, renderFilterError } = await import('../../filter/index.js');
  for (const text of opts.filter) {
    const r = compileFilter(text, family, { now: ctx.deps.now(), ...(opts.tz ? { timeZone: opts.tz } : {}) });
    if (!r.ok) throw new UsageError(renderFilterError(text, r.error));
    parts.push(r.filter);
  }
  return combineFilters(parts);
}

/** The member filters go under: the profile's choice, else `filters` (also when no instance is set up yet). */
export async function filterMemberOf(ctx: Context): Promise<'filter' | 'filters'> {
  try {
    return (await ctx.target()).profile?.filterMember ?? 'filters';
  } catch {
    return 'filters';
  }
}

/**
 * --print-request and --explain: shows the request body (or just its filter)
 * and tells the caller to send nothing. True when it did.
 */
export async function showRequestInstead(opts: FilterOptions, body: Record<string, unknown>, filter: Record<string, unknown> | undefined, ctx: Context): Promise<boolean> {
  if (!opts.printRequest && !opts.explain) return false;
  const shown = opts.explain ? (filter ?? {}) : body;
  await ctx.emit({ kind: 'text', text: `${JSON.stringify(shown, null, 2)}\n` });
  return true;
}

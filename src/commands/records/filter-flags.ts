/**
 * The filter options query, count, sum and export share (--filter,
 * --filter-json, --filter-file, --search, --tz, --explain, --print-request),
 * as data, their typed form, and the filter they make.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import { bool, list, str, type CommandInput, type OptionSpec } from '../../cli/command.js';
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../errors.js';
import { nestsDeeperThan } from '../../util/json-depth.js';
import { duplicateKey } from '../../util/json-keys.js';
import { ReadBoundError } from '../../util/read-bounded.js';
import { readInputBytes, readStreamBytes, utf8Text } from '../../util/read-input.js';
import { shown } from '../../util/shown.js';
import { toTimeZone } from './tz-flag.js';

export const filterOptionSpecs: readonly OptionSpec[] = [
  { flags: '--filter <expr>', help: "a filter expression, e.g. 'type = CUSTOMER and city ~* \"^ber\"' (repeatable: ANDed; see svc help filters)", repeatable: true },
  { flags: '--filter-json <json>', help: 'a filter as the service takes it, JSON (repeatable: ANDed)', repeatable: true },
  { flags: '--filter-file <file>', help: 'a JSON filter from a file (- for stdin; repeatable: ANDed)', repeatable: true },
  { flags: '--search <text>', help: "the service's search across the family's text fields" },
  { flags: '--tz <zone>', help: "time zone for dates in filters and tables (default: this machine's), e.g. Europe/Berlin" },
  { flags: '--explain', help: 'print the compiled JSON filter and send nothing' },
  { flags: '--print-request', help: 'print the JSON body that would be sent, and send nothing' },
];

/** The filter options, typed. */
export interface FilterOptions {
  readonly filter: readonly string[];
  readonly filterJson: readonly string[];
  /** --filter-file, in the order given (at most one of them `-`). */
  readonly filterFiles: readonly string[];
  readonly search?: string;
  readonly tz?: string;
  readonly explain: boolean;
  readonly printRequest: boolean;
}

/** Whether any filter flag was given (--filter, --filter-json, --filter-file, --search, --tz). */
export function filterGiven(f: FilterOptions): boolean {
  return f.filter.length > 0 || f.filterJson.length > 0 || f.filterFiles.length > 0 || f.search !== undefined || f.tz !== undefined;
}

/** --filter-file's values (repeatable); standard input can be read once, so a second `-` is refused. */
export function toFilterFiles(flags: CommandInput['flags']): readonly string[] {
  const files = list(flags, 'filterFile');
  if (files.filter((f) => f === '-').length > 1) {
    throw new UsageError('--filter-file - is given twice, and standard input can be read only once; put all but one of those filters in files');
  }
  return files;
}

export function toFilterOptions(flags: CommandInput['flags']): FilterOptions {
  const search = str(flags, 'search');
  const tz = toTimeZone(flags);
  return {
    filter: list(flags, 'filter'),
    filterJson: list(flags, 'filterJson'),
    filterFiles: toFilterFiles(flags),
    ...(search !== undefined ? { search } : {}),
    ...(tz !== undefined ? { tz } : {}),
    explain: bool(flags, 'explain'),
    printRequest: bool(flags, 'printRequest'),
  };
}

/**
 * How deep a JSON filter may nest: past anything --filter compiles to (its 200
 * levels of the language are at most about 400 of JSON), short of what svc's
 * own recursion (JSON.stringify) could not take.
 */
export const FILTER_JSON_DEPTH = 500;

function jsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not valid JSON: ${shown((err as Error).message)}`);
  }
  if (typeof value !== 'object' || value === null) throw new UsageError(`${what} must be a JSON object (or a ["AND"|"OR"|"NOT", …] array)`);
  if (nestsDeeperThan(value, FILTER_JSON_DEPTH)) {
    throw new UsageError(`${what} nests deeper than ${FILTER_JSON_DEPTH} levels; flatten it (one ["AND", …] or ["OR", …] takes many conditions, IN a list of values)`);
  }
  const twice = duplicateKey(text);
  if (twice !== undefined) {
    throw new UsageError(
      `${what} gives the key '${shown(twice, 80)}' twice in one object (JSON keeps only the last); put both operators in one object, as {"ID": {">": 1, "<": 3}}, or use ["AND", …]`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * The text of --filter-file (- for stdin): UTF-8, a leading byte-order mark
 * dropped; a FIFO is read as it is written (SIGINT and SIGTERM still end svc
 * while it has no writer, which stderr says). A file that cannot be read, or
 * is not UTF-8, is a usage error naming it.
 */
export async function readFilterFile(file: string, ctx: Context): Promise<string> {
  const name = file === '-' ? 'standard input (--filter-file -)' : `--filter-file ${shown(file)}`;
  let bytes: Buffer;
  if (file === '-') bytes = await readStreamBytes(ctx.deps.stdin);
  else {
    try {
      bytes = await readInputBytes(file, () => void ctx.deps.stderr.write(`svc: waiting for a writer to ${name} (a FIFO)\n`));
    } catch (err) {
      const code = err instanceof ReadBoundError ? 'too-large' : ((err as NodeJS.ErrnoException).code ?? 'error');
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : code === 'too-large' ? 'it holds more than 64 MB' : code;
      throw new UsageError(`cannot read --filter-file ${shown(file)} (${why}); give a readable file of JSON, or - for standard input`);
    }
  }
  if (bytes.length === 0) throw new UsageError(`${name} is empty; it must hold one JSON filter object such as '{"lastname": "Acme"}'`);
  const text = utf8Text(bytes);
  if (!text.ok) throw new UsageError(`${name} is not valid JSON: it is ${text.problem}; save it as UTF-8`);
  return text.text;
}

/** The options buildFilter takes: FilterOptions, where a caller without --filter-file (sync's remembered filter) leaves it out. */
export type FilterBuildOptions = Omit<FilterOptions, 'filterFiles'> & { readonly filterFiles?: readonly string[] };

/**
 * The filter from --filter (the language), --filter-json and every --filter-file, all ANDed. `fileTexts`, when
 * given, are the files' texts read already (one per --filter-file, in order), so none is read twice.
 */
export async function buildFilter(family: ResourceFamily, opts: FilterBuildOptions, ctx: Context, fileTexts?: readonly string[]): Promise<Record<string, unknown> | undefined> {
  const files = opts.filterFiles ?? [];
  const parts: Record<string, unknown>[] = opts.filterJson.map((j) => jsonObject(j, '--filter-json'));
  const names = parts.map(() => '--filter-json');
  for (const [i, file] of files.entries()) {
    const name = file === '-' ? '--filter-file -' : `--filter-file ${shown(file)}`;
    parts.push(jsonObject(fileTexts?.[i] ?? (await readFilterFile(file, ctx)), name));
    names.push(name);
  }
  if (parts.length > 0) {
    // Their field keys are checked against the catalogue as --filter's are (loaded only when there is one).
    const { checkFilterJson } = await import('./filter-json.js');
    parts.forEach((p, i) => checkFilterJson(family, p, names[i] ?? '--filter-json'));
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

/** `svc <family> query` (alias list): its options, help and typed options. */
import { findFamily, type ResourceFamily } from '../../../catalogue/index.js';
import { bool, str, type CommandSpec } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { parseCount, parseFields, parseSort, type Selected } from '../../../records/query-body.js';
import { filterOptionSpecs, toFilterOptions, type FilterOptions } from '../filter-flags.js';
import type { RecordVerb } from '../verbs.js';

export interface QueryOptions extends FilterOptions {
  readonly family: ResourceFamily;
  /** `--fields` without a value: list the fields instead of querying. */
  readonly listFields: boolean;
  readonly fields?: readonly Selected[];
  readonly sort?: readonly string[];
  /** --limit; without it, 50 on a terminal and the service's 1000 otherwise. */
  readonly limit?: number;
  readonly offset?: number;
  readonly all: boolean;
  readonly pageSize: number;
  readonly distinct: boolean;
  readonly expand?: readonly string[];
}

/** Flags → QueryOptions, checked against the catalogue. */
export function toQueryOptions(family: ResourceFamily, flags: Readonly<Record<string, unknown>>): QueryOptions {
  const fields = str(flags, 'fields');
  const sort = str(flags, 'sort');
  const all = bool(flags, 'all');
  const offset = str(flags, 'offset');
  if (all && (sort || offset)) throw new UsageError('--all pages in ID order: drop --sort and --offset (sort the output afterwards)');
  const limit = str(flags, 'limit');
  const pageSize = str(flags, 'pageSize');
  const expand = str(flags, 'expand');
  return {
    ...toFilterOptions(flags),
    family,
    listFields: flags.fields === true,
    ...(fields !== undefined ? { fields: parseFields(family, fields, findFamily) } : {}),
    ...(sort ? { sort: parseSort(family, sort) } : {}),
    ...(limit ? { limit: parseCount('--limit', limit, 1, 10000) } : {}),
    ...(offset ? { offset: parseCount('--offset', offset, 0, Number.MAX_SAFE_INTEGER) } : {}),
    all,
    pageSize: pageSize ? parseCount('--page-size', pageSize, 1, 10000) : 1000,
    distinct: bool(flags, 'distinct'),
    ...(expand ? { expand: expand.split(',').map((e) => e.trim()).filter(Boolean) } : {}),
  };
}

export const queryVerb: RecordVerb = {
  name: 'query',
  operation: 'list',
  spec: (family): CommandSpec<QueryOptions> => ({
    name: 'query',
    aliases: ['list'],
    summary: `list ${family.name} records, filtered, sorted and paged`,
    options: [
      ...filterOptionSpecs,
      { flags: '--fields [list]', help: 'fields to show: a,b,contact.city,alias=path,extdata.name (without a value: list the fields)' },
      { flags: '--sort <list>', help: 'sort order, e.g. -lastmodified,+lastname' },
      { flags: '--limit <n>', help: "at most this many records (1 to 10000; default 50 on a terminal, else the service's 1000)" },
      { flags: '--offset <n>', help: 'skip this many records' },
      { flags: '--all', help: 'every matching record, page after page in ID order (streams; no silent truncation)' },
      { flags: '--page-size <n>', help: 'records per request with --all (default 1000)' },
      { flags: '--distinct', help: 'drop duplicate records' },
      { flags: '--expand <list>', help: 'expand composite and bin file fields, e.g. picbinfile' },
    ],
    examples: [
      `svc ${family.name} query --filter 'ID > 100' --limit 10`,
      `svc ${family.name} query --all -o ndjson > ${family.name}.ndjson`,
      `svc ${family.name} query --fields ID --print-request`,
    ],
    toOptions: ({ flags }) => toQueryOptions(family, flags),
    run: async (opts, ctx) => (await import('./run.js')).runQuery(opts, ctx),
  }),
};

/** `svc <family> query`'s typed options and how its flags become them, checked against the catalogue. */
import { findFamily, type ResourceFamily } from '../../../catalogue/index.js';
import { parseExpand } from '../../../records/expand.js';
import { bool, str } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { parseCount, parseFields, parseSort } from '../../../records/query-body.js';
import { toFilterOptions, type FilterOptions } from '../filter-flags.js';
import type { QueryShape } from '../query-request.js';

/** Query's options: the filter options, the shape of the query (QueryShape, which its request reads) and how to page it. */
export interface QueryOptions extends FilterOptions, QueryShape {
  readonly family: ResourceFamily;
  /** `--fields` without a value: list the fields instead of querying. */
  readonly listFields: boolean;
  /** --page-size: records per request with --all. */
  readonly pageSize: number;
}

/** Flags → QueryOptions, checked against the catalogue. */
export function toQueryOptions(family: ResourceFamily, flags: Readonly<Record<string, unknown>>): QueryOptions {
  const fields = str(flags, 'fields');
  const sort = str(flags, 'sort');
  const all = bool(flags, 'all');
  const offset = str(flags, 'offset');
  if (all && (sort !== undefined || offset)) throw new UsageError('--all pages in ID order: drop --sort and --offset (sort the output afterwards)');
  const limit = str(flags, 'limit');
  const pageSize = str(flags, 'pageSize');
  const expand = str(flags, 'expand');
  if (all && limit !== undefined) throw new UsageError('--all gives every matching record: drop --limit (--page-size N sets the records per request), or drop --all for at most N records');
  if (!all && pageSize !== undefined) throw new UsageError('--page-size sets the records per request of --all: add --all, or use --limit N for one page of N records');
  if (all && bool(flags, 'distinct')) throw new UsageError('--distinct does not go with --all (paging by ID makes every record distinct): drop --all and use --limit N (at most 10000), or de-duplicate the output afterwards');
  return {
    ...toFilterOptions(flags),
    family,
    listFields: flags.fields === true,
    ...(fields !== undefined ? { fields: parseFields(family, fields, findFamily) } : {}),
    ...(sort !== undefined ? { sort: parseSort(family, sort, findFamily) } : {}),
    ...(limit ? { limit: parseCount('--limit', limit, 1, 10000) } : {}),
    ...(offset ? { offset: parseCount('--offset', offset, 0, Number.MAX_SAFE_INTEGER) } : {}),
    all,
    pageSize: pageSize ? parseCount('--page-size', pageSize, 1, 10000) : 1000,
    distinct: bool(flags, 'distinct'),
    ...(expand !== undefined ? { expand: parseExpand(family, expand) } : {}),
  };
}

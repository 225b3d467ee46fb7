/**
 * The ID conditions of an export's requests: the user's filter ANDed with an
 * ID range, and the small IDs-only queries that find a range's bounds and
 * sample its density before the pages are fetched.
 */
import { andCondition } from '../records/page-filter.js';
import type { RangeState } from './checkpoint.js';
import type { FetchRows } from './pager.js';
import type { ExportRequest } from './plan.js';

/** The query body's filter part: the user's filter (and search) ANDed with an ID condition. */
export function withIds(req: ExportRequest, ids?: Record<string, number>): Record<string, unknown> {
  const filter = ids ? andCondition(req.filter, 'ID', ids) : req.filter;
  return { ...(filter ? { [req.filterMember]: filter } : {}), ...(req.search ? { query: req.search } : {}) };
}

/** The IDs above `range.last` within the range, as a filter condition. */
export function remaining(range: RangeState): Record<string, number> {
  return range.upTo === null ? { '>': range.last } : { '>': range.last, '<=': range.upTo };
}

/** The IDs of the first `limit` records matching the filter (within `ids` when given) in `sort` order, asked for IDs only. */
export async function idsOf(fetch: FetchRows, req: ExportRequest, sort: '+ID' | '-ID', limit: number, ids?: Record<string, number>): Promise<number[]> {
  return (await fetch({ ...withIds(req, ids), sort: [sort], limit, fields: { ID: 'ID' } })).map((row) => Number(row.ID));
}

/** The ID of the first record in `sort` order: +ID the lowest, -ID the highest. */
export async function firstId(fetch: FetchRows, req: ExportRequest, sort: '+ID' | '-ID', ids?: Record<string, number>): Promise<number | undefined> {
  return (await idsOf(fetch, req, sort, 1, ids))[0];
}

/** The lowest and highest ID matching the filter, or undefined when nothing matches. */
export async function idBounds(fetch: FetchRows, req: ExportRequest): Promise<{ min: number; max: number } | undefined> {
  const [min, max] = await Promise.all([firstId(fetch, req, '+ID'), firstId(fetch, req, '-ID')]);
  return min === undefined || max === undefined ? undefined : { min, max };
}


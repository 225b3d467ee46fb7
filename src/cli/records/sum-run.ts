/**
 * `svc <family> sum FIELD [--by FIELD]`: streams every matching record (the
 * keyset paging of query --all, fetching only ID, FIELD and the --by field)
 * and totals exactly with decimal arithmetic. Memory holds one page and one
 * running total per group, whatever the number of records.
 */
import { connectCmd } from '../legacy.js';
import type { Command } from 'commander';
import { findField, type ResourceFamily, type ResourceField } from '../../catalogue/index.js';
import { SvcError, UsageError } from '../../errors.js';
import type { Column, Row, View } from '../../output/view.js';
import { DecimalSum, toJsonDecimal } from '../../util/decimal.js';
import { didYouMean } from '../../util/suggest.js';
import { connect } from '../connection.js';
import { createContext, emit, type CommandContext } from '../legacy.js';
import type { Deps } from '../deps.js';
import { displayText } from '../../records/columns.js';
import { parseCount, queryBody } from '../../records/query-body.js';
import { allPages, buildFilter, filterMemberFor, type Plan, type QueryFlags, showRequestInstead } from './query-run.js';

/** The options of `sum`: query's filter options, --by and --page-size. */
export type SumFlags = Pick<QueryFlags, 'filter' | 'filterJson' | 'filterFile' | 'search' | 'tz' | 'explain' | 'printRequest' | 'pageSize'> & {
  by?: string;
};

const SUMMABLE: ReadonlySet<string> = new Set(['int16', 'int32', 'int64', 'double']);
const GROUPABLE: ReadonlySet<string> = new Set([...SUMMABLE, 'string', 'flag']);

/** A group's value: what the service sent for the --by field (null when it was null). */
export type GroupKey = string | number | boolean | null;

/** The running figures of one group. */
export interface Tally {
  readonly sum: DecimalSum;
  count: number;
  nulls: number;
}

function ownField(family: ResourceFamily, name: string, role: string): ResourceField {
  const field = findField(family, name);
  if (field) return field;
  const names = family.fields.map((f) => f.name);
  throw new UsageError(`unknown ${role} field '${name}' on ${family.name}${didYouMean(name, names)} (run 'svc describe ${family.name}')`);
}

/** The field to total: an own numeric field of the family, else a usage error naming it and its type. */
export function summableField(family: ResourceFamily, name: string): ResourceField {
  const field = ownField(family, name, 'sum');
  if (!SUMMABLE.has(field.type)) {
    throw new UsageError(`cannot sum '${name}' on ${family.name}: it is a ${field.type} field (sum takes int16, int32, int64 or double fields)`);
  }
  return field;
}

/** The field to group by: an own scalar field (number, text or flag), else a usage error. */
export function groupField(family: ResourceFamily, name: string): ResourceField {
  const field = ownField(family, name, '--by');
  if (!GROUPABLE.has(field.type)) {
    throw new UsageError(`cannot group by '${name}' on ${family.name}: it is a ${field.type} field (--by takes a number, text or flag field)`);
  }
  return field;
}

/**
 * Totals `field` over the rows, per value of `by` (one group, key null, without
 * it). Nulls are counted, not added; a value that is no number fails the run
 * rather than being dropped from a total that must be exact.
 */
export async function tally(rows: AsyncIterable<Row>, field: string, by?: string): Promise<Map<GroupKey, Tally>> {
  const groups = new Map<GroupKey, Tally>();
  for await (const row of rows) {
    const key = by === undefined ? null : ((row[by] ?? null) as GroupKey);
    let t = groups.get(key);
    if (!t) groups.set(key, (t = { sum: new DecimalSum(), count: 0, nulls: 0 }));
    const value = row[field];
    if (value === null || value === undefined) {
      t.nulls++;
      continue;
    }
    if ((typeof value !== 'number' && typeof value !== 'string') || !t.sum.add(value)) {
      throw new SvcError(`record ${String(row.ID)} has ${field} = ${JSON.stringify(value)}, which is not a number; no total written`);
    }
    t.count++;
  }
  return groups;
}

/** Group order: numbers, then text, then flags, by value; null last. */
export function compareGroups(a: GroupKey, b: GroupKey): number {
  const rank = (k: GroupKey): number => (k === null ? 3 : typeof k === 'number' ? 0 : typeof k === 'string' ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (a === null || b === null) return 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The figures of one total as data: the sum as toJsonDecimal writes it. */
function figures(t: Tally | undefined): { sum: number | string; count: number; nulls: number } {
  if (!t) return { sum: 0, count: 0, nulls: 0 };
  return { sum: toJsonDecimal(t.sum.total), count: t.count, nulls: t.nulls };
}

function totalView(ctx: CommandContext, field: string, t: Tally | undefined): View {
  const value = { field, ...figures(t) };
  if (ctx.format === 'csv' || ctx.format === 'tsv') {
    return { kind: 'records', columns: ['field', 'sum', 'count', 'nulls'].map((key) => ({ key })), rows: [value] };
  }
  const details = Object.entries(value).map(([k, v]) => [k, String(v)] as const);
  return { kind: 'object', value, details };
}

function groupsView(ctx: CommandContext, by: ResourceField, groups: Map<GroupKey, Tally>, tz?: string): View {
  const keys = [...groups.keys()].sort(compareGroups);
  const rows: Row[] = keys.map((group) => ({ group, ...figures(groups.get(group)) }));
  const group: Column =
    ctx.format === 'table' ? { key: 'group', header: 'group', text: (v: unknown) => displayText(by, v, tz) } : { key: 'group' };
  return { kind: 'records', columns: [group, { key: 'sum' }, { key: 'count' }, { key: 'nulls' }], rows };
}

async function plan(self: Command, deps: Deps, family: ResourceFamily, fields: readonly string[], flags: SumFlags): Promise<Plan> {
  const filter = await buildFilter(family, flags, deps);
  const filterMember = await filterMemberFor(self, deps);
  const body = queryBody({
    filterMember,
    fields: fields.map((name) => ({ name, path: name })),
    ...(filter ? { filter } : {}),
    ...(flags.search ? { search: flags.search } : {}),
  });
  return { body, filterMember, ...(filter ? { filter } : {}) };
}

/** `svc <family> sum FIELD`: one total, or one per group with --by. */
export async function runSum(self: Command, deps: Deps, family: ResourceFamily, name: string, flags: SumFlags): Promise<void> {
  const ctx = createContext(self, deps);
  const field = summableField(family, name);
  const by = flags.by === undefined ? undefined : groupField(family, flags.by);
  const pageSize = flags.pageSize ? parseCount('--page-size', flags.pageSize, 1, 10000) : 1000;
  const fields = [...new Set(['ID', field.name, ...(by ? [by.name] : [])])];
  const p = await plan(self, deps, family, fields, flags);
  if (await showRequestInstead(self, deps, flags, p)) return;
  const conn = await connectCmd(self, deps, { token: true });
  try {
    const groups = await tally(allPages(conn, family, p, pageSize), field.name, by?.name);
    const view = by ? groupsView(ctx, by, groups, flags.tz) : totalView(ctx, field.name, groups.get(null));
    await emit(self, deps, () => view);
  } finally {
    await conn.client.close();
  }
}

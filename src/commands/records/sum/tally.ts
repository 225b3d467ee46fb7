/**
 * The running totals of `sum`: exact decimal sums per group, nulls counted,
 * in one pass over the records (memory holds one total per group).
 */
import { SvcError } from '../../../errors.js';
import type { Row } from '../../../output/view.js';
import { DecimalSum } from '../../../util/decimal.js';

/** A group's value: what the service sent for the --by field (null when it was null). */
export type GroupKey = string | number | boolean | null;

/** The running figures of one group. */
export interface Tally {
  readonly sum: DecimalSum;
  count: number;
  nulls: number;
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

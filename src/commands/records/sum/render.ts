/** How `svc <family> sum` shows its totals: one object (a csv/tsv line), or one row per group. */
import type { ResourceField } from '../../../catalogue/index.js';
import type { OutputSettings } from '../../../cli/context.js';
import type { Column, Row, View } from '../../../output/view.js';
import { displayText } from '../../../records/columns.js';
import { formatDecimal, toJsonDecimal } from '../../../util/decimal.js';
import { compareGroups, type GroupKey, type Tally } from './tally.js';

/**
 * The figures of one total as data: in JSON the sum as toJsonDecimal writes it (a number when
 * its text is the exact total by value); in a table, CSV and TSV the exact total as plain decimal text.
 */
function figures(output: OutputSettings, t: Tally | undefined): { sum: number | string; count: number; nulls: number } {
  if (!t) return { sum: 0, count: 0, nulls: 0 };
  const json = output.format === 'json' || output.format === 'ndjson';
  return { sum: json ? toJsonDecimal(t.sum.total) : formatDecimal(t.sum.total), count: t.count, nulls: t.nulls };
}

/** One total: an object, or a one-line table in csv and tsv. */
export function totalView(output: OutputSettings, field: string, t: Tally | undefined): View {
  const value = { field, ...figures(output, t) };
  if (output.format === 'csv' || output.format === 'tsv') {
    return { kind: 'records', columns: ['field', 'sum', 'count', 'nulls'].map((key) => ({ key })), rows: [value] };
  }
  const details = Object.entries(value).map(([k, v]) => [k, String(v)] as const);
  return { kind: 'object', value, details };
}

/** One row per group, in group order; on a terminal the group as its enum name or date. */
export function groupsView(output: OutputSettings, by: ResourceField, groups: Map<GroupKey, Tally>, tz?: string): View {
  const keys = [...groups.keys()].sort(compareGroups);
  const rows: Row[] = keys.map((group) => ({ group, ...figures(output, groups.get(group)) }));
  const group: Column =
    output.format === 'table' ? { key: 'group', header: 'group', text: (v: unknown) => displayText(by, v, tz) } : { key: 'group' };
  return { kind: 'records', columns: [group, { key: 'sum' }, { key: 'count' }, { key: 'nulls' }], rows };
}

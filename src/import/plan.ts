/**
 * What an import does with each row, decided before anything is written: a
 * create (no ID, or `--key` found no record), an update (an ID, or `--key`
 * found one record), unchanged (the record already holds the row's values),
 * a failure known in advance (`--key` found several records; the ID names no
 * record), or invalid (the catalogue's checks, in the mode the row turned out
 * to have). Pure: the lookups are done by the caller (lookup.ts).
 */
import type { ResourceFamily } from '../catalogue/index.js';
import type { RecordBody } from '../records/convert.js';
import { validateBody } from '../records/validate.js';
import { holdsValues, keyText } from './lookup.js';
import type { ImportRow } from './rows.js';

/** One row's fate. */
export type RowPlan =
  | { readonly kind: 'create'; readonly row: ImportRow }
  | { readonly kind: 'update'; readonly row: ImportRow; readonly id: string }
  | { readonly kind: 'unchanged'; readonly row: ImportRow; readonly id: string }
  /** A create whose outcome was unknown, found by its key: it was created. */
  | { readonly kind: 'found'; readonly row: ImportRow; readonly id: string }
  | { readonly kind: 'fail'; readonly row: ImportRow; readonly error: string; readonly id?: string }
  | { readonly kind: 'invalid'; readonly row: ImportRow; readonly problems: readonly string[] };

/** How rows are matched to records. */
export interface PlanOptions {
  /** `--key FIELD`: rows are matched by this field's value instead of by ID. */
  readonly key?: string;
  /** Lines whose create was sent before without a known outcome (resume re-checks them by key). */
  readonly recheck?: ReadonlySet<number>;
}

/** The key's value in a row, or a problem. */
export function keyValueOf(row: ImportRow, key: string): { value?: unknown; problem?: string } {
  const v = row.body[key];
  if (v === undefined || v === null || v === '') return { problem: `no value for the key ${key}; every row needs one with --key ${key}` };
  return { value: v };
}

/**
 * Problems that need the whole file: an ID or a key value on two rows (their
 * writes could overtake each other), and an ID given beside --key.
 */
export function markDuplicates(rows: readonly ImportRow[], key: string | undefined): void {
  const seen = new Map<string, number>();
  for (const row of rows) {
    if (key !== undefined && row.id !== undefined) {
      row.problems.push(`gives an ID and --key ${key} matches by ${key}; leave the ID column out, or import without --key to update by ID`);
      continue;
    }
    const k = key === undefined ? row.id : keyValueOf(row, key).value;
    if (k === undefined || row.problems.length > 0) continue;
    const text = key === undefined ? `ID ${String(k)}` : `${key} ${keyText(k)}`;
    const first = seen.get(text);
    if (first !== undefined) row.problems.push(`${text} is also on line ${first}; give one row per ${key ?? 'record'}`);
    else seen.set(text, row.line);
  }
}

function validated(family: ResourceFamily, row: ImportRow, mode: 'create' | 'update', body: RecordBody): string[] {
  if (row.problems.length > 0) return row.problems;
  if (mode === 'update' && Object.keys(body).length === 0) return ['nothing to update: the row has an ID and no other value'];
  return validateBody(family, body, mode);
}

/** The plan of one row, given what the lookups found for it (its key's or its ID's records; undefined when not looked up). */
export function planRow(family: ResourceFamily, row: ImportRow, found: readonly Record<string, unknown>[] | undefined, opts: PlanOptions): RowPlan {
  const matched = opts.key !== undefined || row.id !== undefined;
  const records = found ?? [];
  if (row.problems.length === 0 && matched && records.length > 1) {
    const ids = records.slice(0, 5).map((r) => String(r.ID)).join(', ');
    return { kind: 'fail', row, error: `${records.length} ${family.name} records have ${opts.key} = ${keyText(row.body[opts.key ?? ''])} (IDs ${ids}${records.length > 5 ? ', …' : ''}); make the key unique, or give the ID` };
  }
  const record = records[0];
  if (!matched || (opts.key !== undefined && !record)) {
    const problems = validated(family, row, 'create', row.body);
    return problems.length > 0 ? { kind: 'invalid', row, problems } : { kind: 'create', row };
  }
  const problems = validated(family, row, 'update', row.body);
  if (problems.length > 0) return { kind: 'invalid', row, problems };
  const id = record ? String(record.ID) : (row.id as string);
  if (opts.recheck?.has(row.line) && record) return { kind: 'found', row, id };
  if (!record) return { kind: 'fail', row, id, error: `${family.name} ${id} does not exist (or is not visible to you); check the ID` };
  return holdsValues(family, row.body, record) ? { kind: 'unchanged', row, id } : { kind: 'update', row, id };
}

/**
 * Columns of record output. Tables are for people: enum names instead of
 * numbers, timestamps as local dates. CSV and TSV keep the service's values.
 */
import { enumNameOf, findFamily, findField, type Field, type ResourceFamily } from '../catalogue/index.js';
import { toCell } from '../output/cells.js';
import type { Column } from '../output/view.js';
import type { Selected } from './query-body.js';

/** The catalogue field a path reads, when it is known (own field or one step through a reference). */
export function fieldOfPath(family: ResourceFamily, path: string): Field | undefined {
  const [head = '', tail] = path.split('.');
  const field = findField(family, head);
  if (!tail) return field;
  const next = field?.ref?.isFamily ? findFamily(field.ref.family) : undefined;
  return next ? findField(next, tail) : undefined;
}

/** Formats Unix seconds as `2026-11-22 14:03` in a time zone (default: the machine's). */
export function formatTimestamp(seconds: number, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(seconds * 1000));
  const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

/** How a table shows one value of a field. */
export function displayText(field: Field | undefined, value: unknown, timeZone?: string): string {
  if (value === null || value === undefined || !field) return toCell(value);
  const name = enumNameOf(field, value);
  if (name) return name;
  if (field.timestamp && typeof value === 'number') return formatTimestamp(value, timeZone);
  return toCell(value);
}

/** Table columns: readable enum names and dates. */
export function tableColumns(family: ResourceFamily, selected: readonly Selected[], timeZone?: string): Column[] {
  return selected.map((s) => {
    const field = fieldOfPath(family, s.path);
    return { key: s.name, header: s.name, text: (v: unknown) => displayText(field, v, timeZone) };
  });
}

/** CSV/TSV columns: the values as the service sends them. */
export function dataColumns(selected: readonly Selected[]): Column[] {
  return selected.map((s) => ({ key: s.name }));
}

/** The columns a table shows by default: the family's default columns. */
export function defaultSelection(family: ResourceFamily): Selected[] {
  return family.defaultColumns.map((c) => ({ name: c, path: c }));
}

/** Every field of the family, for CSV/TSV without --fields. */
export function allFields(family: ResourceFamily): Selected[] {
  return family.fields.map((f) => ({ name: f.name, path: f.name }));
}

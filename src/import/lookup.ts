/**
 * The records an import's rows name, found before anything is written: by
 * `--key FIELD` (`FIELD IN […]`) or by ID (`ID IN […]`), a few hundred values
 * a query, every page by ID. Each found record carries the fields the rows
 * write, so a row whose fields already hold its values can be left alone
 * (unchanged) without another request.
 */
import { findField, isComposite, type ResourceFamily } from '../catalogue/index.js';
import type { RecordBody } from '../records/convert.js';

/** Values a lookup query asks for at once (the service takes IN lists of thousands; a few hundred keep each page small). */
export const LOOKUP_CHUNK = 500;

/** Sends one lookup: a filter and the fields to fetch; yields every matching record (all pages). */
export type LookupQuery = (filter: Record<string, unknown>, fields: Record<string, string>) => AsyncIterable<Record<string, unknown>>;

/** A value as a map key: 1 and "1" stay apart. */
export function keyText(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

/** Whether a body's member can be compared with a fetched record: a stored scalar field (not extdata, tags, JSON or files). */
export function isComparable(family: ResourceFamily, name: string): boolean {
  const field = findField(family, name);
  return field !== undefined && field.name !== 'ID' && !isComposite(field.type) && field.type !== 'binfile';
}

/** True when every member of `body` already has its value in `record` (so writing it would change nothing). */
export function holdsValues(family: ResourceFamily, body: RecordBody, record: Readonly<Record<string, unknown>>): boolean {
  for (const [name, value] of Object.entries(body)) {
    if (!isComparable(family, name) || !Object.hasOwn(record, name)) return false;
    if (record[name] !== value) return false;
  }
  return true;
}

/**
 * Looks up every value of `values` on `field` (chunk by chunk), fetching ID,
 * the field, and `compare` (the body fields rows would write). Answers each
 * value's records by keyText.
 */
export async function lookupAll(
  family: ResourceFamily,
  field: string,
  values: readonly unknown[],
  compare: ReadonlySet<string>,
  query: LookupQuery,
): Promise<Map<string, Record<string, unknown>[]>> {
  const found = new Map<string, Record<string, unknown>[]>();
  const fields: Record<string, string> = { ID: 'ID', [field]: field };
  for (const name of compare) if (isComparable(family, name)) fields[name] = name;
  for (let i = 0; i < values.length; i += LOOKUP_CHUNK) {
    const chunk = values.slice(i, i + LOOKUP_CHUNK);
    for await (const record of query({ [field]: { IN: chunk } }, fields)) {
      const k = keyText(field === 'ID' ? Number(record.ID) : record[field]);
      const list = found.get(k);
      if (list) list.push(record);
      else found.set(k, [record]);
    }
  }
  return found;
}

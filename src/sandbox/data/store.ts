/**
 * Row-level access to family tables shared by the record handlers and the
 * seeds: inserts from plain objects, with JSON-valued fields stored as text.
 */
import { findFamily, type ResourceFamily } from '../../catalogue/index.js';
import { q, type Db } from '../db.js';
import { columnType, table } from '../schema.js';

/** The family or an error: the sandbox only stores families of the catalogue. */
export function familyOf(name: string): ResourceFamily {
  const f = findFamily(name);
  if (!f) throw new Error(`no family '${name}'`);
  return f;
}

/** A value as the column stores it: JSON text for composite fields, 0/1 for booleans. */
export function toColumn(family: ResourceFamily, field: string, value: unknown): unknown {
  const f = family.fields.find((x) => x.name === field);
  if (value === null || value === undefined || !f) return value ?? null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (columnType(f) === 'TEXT' && typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** Inserts one row and returns its ID. */
export function insertRow(db: Db, instance: string, familyName: string, values: Record<string, unknown>): number {
  const family = familyOf(familyName);
  const keys = Object.keys(values);
  const sql =
    keys.length === 0
      ? `INSERT INTO ${table(instance, familyName)} DEFAULT VALUES`
      : `INSERT INTO ${table(instance, familyName)} (${keys.map(q).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`;
  const info = db.prepare(sql).run(...keys.map((k) => toColumn(family, k, values[k])));
  return Number(info.lastInsertRowid);
}

/** A prepared insert for many rows with the same columns (bulk seeding). */
export function prepareInsert(db: Db, instance: string, familyName: string, columns: readonly string[]): (values: readonly unknown[]) => number {
  const stmt = db.prepare(
    `INSERT INTO ${table(instance, familyName)} (${columns.map(q).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  return (values) => Number(stmt.run(...values).lastInsertRowid);
}

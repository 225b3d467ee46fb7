/**
 * Columns the database catalogue (dbref.json) lists for a family that the
 * OpenAPI schema leaves out. The generator reads fields from the schema's
 * properties, so without this list they would not exist for svc or the
 * sandbox at all. Most such columns hold secrets (password hashes, keys,
 * one-time-code seeds) or internal settings and must stay out; the ones named
 * here are plain data the service answers for, and get a field built from the
 * column alone (type, NOT NULL, default, index, foreign key).
 */
import type { Field } from '../catalogue/types.js';
import { buildField } from './fields.js';
import type { ApiSchema, DbField, DbTable } from './spec-types.js';

/** Family → db-only columns to add as fields. */
export const DB_ONLY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // The e-mail's Message-ID header: indexed, filterable, and served by the service.
  messages: ['messageid'],
};

/** An API-shaped schema for a column that api.json does not describe. */
function schemaOfColumn(db: DbField): ApiSchema {
  const nullable = !db.notnull;
  if (db.type === 'text' || db.type.startsWith('character')) return { type: 'string', nullable };
  if (db.type === 'integer') return { type: 'integer', format: 'int32', nullable };
  if (db.type === 'bigint') return { type: 'integer', format: 'int64', nullable };
  if (db.type === 'smallint') return { type: 'integer', nullable };
  if (db.type === 'double precision' || db.type === 'numeric') return { type: 'number', format: 'double', nullable };
  throw new Error(`db-only column ${db.name}: unmapped type ${db.type}`);
}

/** The fields DB_ONLY_FIELDS adds to a family, in the column order of its table. */
export function dbOnlyFields(family: string, table: DbTable | undefined, ctx: { writable: boolean; families: ReadonlySet<string> }): Field[] {
  const names = DB_ONLY_FIELDS[family] ?? [];
  return names.map((name) => {
    const column = table?.fields.find((f) => f.name === name);
    if (!column) throw new Error(`db-only field ${family}.${name} is not a column of dbref.json`);
    return buildField(name, schemaOfColumn(column), table, ctx);
  });
}

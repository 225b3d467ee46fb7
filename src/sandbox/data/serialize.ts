/**
 * Rows to API records. Composite fields read as JSON text unless expanded;
 * a bin file field reads as its ID, or `{ content }` (Base64) when expanded.
 */
import { expandableFields, type ResourceFamily, type ResourceField } from '../../catalogue/index.js';
import type { SandboxContext } from '../context.js';
import { table } from '../schema.js';

/** Names a request may expand on this family: its composite and bin file fields. */
export function expandable(family: ResourceFamily): ResourceField[] {
  return expandableFields(family);
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One field's value as the API shows it. */
export function fieldValue(ctx: SandboxContext, field: ResourceField, value: unknown, expand: ReadonlySet<string>): unknown {
  if (!expand.has(field.name) || value === null || value === undefined) {
    // Objects and arrays that arrive as JSON text stay text, as the service sends them.
    return value;
  }
  if (field.type === 'binfile') {
    const row = ctx.db.prepare(`SELECT content FROM ${table(ctx.instance, '_binfiles')} WHERE binfile = ?`).get(value) as { content: Buffer } | undefined;
    return row ? { content: row.content.toString('base64') } : null;
  }
  return parseJson(value);
}

/** A stored row as an API record (hidden columns dropped). */
export function toRecord(ctx: SandboxContext, family: ResourceFamily, row: Record<string, unknown>, expand: ReadonlySet<string> = new Set()): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of family.fields) out[f.name] = fieldValue(ctx, f, row[f.name], expand);
  return out;
}

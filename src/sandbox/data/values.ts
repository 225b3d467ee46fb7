/**
 * Request bodies to column values: every field checked against the catalogue
 * (known, writable, of the right type) before the database sees it. Form
 * bodies carry strings; they are converted by field type.
 */
import { createHash } from 'node:crypto';
import type { ResourceFamily, ResourceField } from '../../catalogue/index.js';
import type { SandboxContext } from '../context.js';
import { badRequest } from '../errors.js';
import { excerpt, excerptValue, LIMITS, overLimit } from '../limits.js';
import { table } from '../schema.js';
import { insertRow } from './store.js';

/** Pseudo fields a create or update may carry beside the record's fields. */
export interface PseudoFields {
  extdata?: Record<string, unknown>;
  tags?: string[];
  addTags?: string[];
  removeTags?: string[];
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** An integer field's value; 400 unless it is an integer that a double holds exactly (|n| ≤ 2^53 − 1). */
function integer(field: ResourceField, v: unknown): number {
  if (typeof v === 'boolean' && field.type === 'flag') return v ? 1 : 0;
  const n = typeof v === 'string' && INTEGER.test(v.trim()) ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw badRequest(`field '${field.name}' must be an integer, not ${excerptValue(v)}`);
  if (!Number.isSafeInteger(n)) {
    throw badRequest(`field '${field.name}': ${excerptValue(v)} is beyond ±(2^53 − 1), the largest integer the sandbox stores exactly; use a smaller value`);
  }
  return n;
}

/** A binfile write: `{content}` (Base64) or `{uri}` (data URI) becomes a new bin file; returns its ID. */
/** The bytes of a binfile write, or undefined when it is not `{content}` or `{uri}` (a form sends either as JSON text). */
function binfileBytes(v: unknown): Buffer | undefined {
  try {
    const o = (typeof v === 'string' ? (JSON.parse(v) as unknown) : v) as { content?: unknown; uri?: unknown } | null;
    if (o && typeof o.content === 'string') return Buffer.from(o.content, 'base64');
    const m = o && typeof o.uri === 'string' ? /^data:[^,]*?(;base64)?,(.*)$/s.exec(o.uri) : null;
    if (m) return m[1] ? Buffer.from(m[2] ?? '', 'base64') : Buffer.from(decodeURIComponent(m[2] ?? ''), 'utf8');
  } catch {
    // Not JSON text, or a data URI with a malformed %-escape: the 400 below names the forms it takes.
  }
  return undefined;
}

function storeBinfile(ctx: SandboxContext, field: ResourceField, v: unknown): number {
  const bytes = binfileBytes(v);
  if (!bytes || bytes.length === 0) throw badRequest(`field '${field.name}' takes {"content": <Base64>} or {"uri": <data URI>} with at least one byte`);
  const hash = `\\x${createHash('md5').update(bytes).digest('hex')}`;
  const id = insertRow(ctx.db, ctx.instance, 'binfiles', { size: bytes.length, hash });
  ctx.db.prepare(`INSERT INTO ${table(ctx.instance, '_binfiles')} (binfile, content) VALUES (?, ?)`).run(id, bytes);
  return id;
}

/** Converts one written value to what its column stores. */
export function toStored(ctx: SandboxContext, field: ResourceField, v: unknown): unknown {
  if (v === null || (v === '' && field.nullable && field.type !== 'string')) return null;
  switch (field.type) {
    case 'int16':
    case 'int32':
    case 'int64':
    case 'flag':
      return integer(field, v);
    case 'double':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      if (typeof v === 'string' && NUMBER.test(v.trim())) return Number(v.trim());
      throw badRequest(`field '${field.name}' must be a number, not ${JSON.stringify(v)}`);
    case 'string':
      if (typeof v === 'string') return checkedText(`field '${field.name}'`, v);
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      throw badRequest(`field '${field.name}' must be a string`);
    case 'binfile':
      return storeBinfile(ctx, field, v);
    default:
      if (typeof v === 'string') {
        try {
          JSON.parse(v);
        } catch {
          throw badRequest(`field '${field.name}' must be JSON (an object or array, or its JSON text)`);
        }
        return v;
      }
      return JSON.stringify(v);
  }
}

function stringList(name: string, v: unknown): string[] {
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) throw badRequest(`'${name}' must be an array of strings`);
  return list as string[];
}

/** Pseudo field → what it writes, as the catalogue's writeParams name it. */
const PSEUDO: ReadonlyMap<string, 'extdata' | 'tags'> = new Map([
  ['extdata', 'extdata'],
  ['tags', 'tags'],
  ['+tags', 'tags'],
  ['-tags', 'tags'],
]);

/** Refuses a pseudo field the family's create and update do not offer (the catalogue's writeParams). */
function checkOffered(family: ResourceFamily, key: string): void {
  const kind = PSEUDO.get(key);
  if (kind && !family.writeParams.includes(kind)) {
    throw badRequest(`'${key}' is not offered on ${family.name}; its create and update take no ${kind === 'extdata' ? 'extension data' : 'tags'}`);
  }
}

/** A stored text within LIMITS.textLength, else 400 naming the limit. */
function checkedText(what: string, text: string): string {
  if (text.length > LIMITS.textLength) throw overLimit(`${what} holds ${text.length.toLocaleString('en-US')} characters`, LIMITS.textLength, 'characters per stored text');
  return text;
}

function setPseudo(pseudo: PseudoFields, key: string, v: unknown): void {
  if (key === 'extdata') {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest("'extdata' must be an object of extension field values");
    for (const [name, value] of Object.entries(v)) checkedText(`extdata '${excerpt(name)}'`, JSON.stringify(value) ?? '');
    pseudo.extdata = v as Record<string, unknown>;
  } else if (key === 'tags') pseudo.tags = stringList(key, v);
  else if (key === '+tags') pseudo.addTags = stringList(key, v);
  else pseudo.removeTags = stringList(key, v);
}

/**
 * Splits a body into column values and pseudo fields; 400 for an unknown field,
 * a field the service sets (ID aside, returned for the caller to judge), or a
 * pseudo field the family does not offer. `values` has no prototype, so only
 * the body's own keys are ever found in it.
 */
export function parseWrite(
  ctx: SandboxContext,
  family: ResourceFamily,
  body: unknown,
): { values: Record<string, unknown>; pseudo: PseudoFields; id?: unknown } {
  const values = Object.create(null) as Record<string, unknown>;
  if (body === undefined) return { values, pseudo: {} };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body must be an object of field values');
  const pseudo: PseudoFields = {};
  let id: unknown;
  for (const [key, v] of Object.entries(body)) {
    if (key === 'ID') id = v;
    else if (PSEUDO.has(key)) {
      checkOffered(family, key);
      setPseudo(pseudo, key, v);
    } else {
      const field = family.fields.find((f) => f.name === key);
      if (!field) throw badRequest(`unknown field '${key}' on ${family.name}`);
      if (!field.writable) throw badRequest(`field '${key}' of ${family.name} is set by the service`);
      values[key] = toStored(ctx, field, v);
    }
  }
  return id === undefined ? { values, pseudo } : { values, pseudo, id };
}

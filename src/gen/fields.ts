import { isComposite, type EnumValue, type Field, type FieldRef, type FieldType } from '../catalogue/types.js';
import { domainField, parseDomainCheck, type DomainFacts } from './checks.js';
import type { ApiSchema, DbField, DbTable } from './spec-types.js';

/**
 * Fields the service sets itself; a client never writes them. The documents
 * say creator and creationdate "default to" the user and time of creation, but
 * letting a body set them would let anyone forge who made a record and when.
 */
const SERVICE_SET = new Set(['ID', 'creator', 'creationdate', 'lastmodified']);

function refName(ref: string | undefined): string | undefined {
  return ref?.split('/').pop();
}

/** Maps an API property (and its column) to the client's field type. */
export function fieldType(p: ApiSchema, db: DbField | undefined): FieldType {
  const ref = refName(p.$ref);
  if (ref === 'binfile-field') return 'binfile';
  if (ref === 'meta-field') return 'meta';
  if (ref === 'items-field') return 'items';
  if (p.oneOf) {
    const kinds = p.oneOf.map((v) => v.type);
    return kinds.includes('array') && !kinds.includes('object') ? 'array' : 'json';
  }
  if (p.type === 'object') return 'object';
  if (p.type === 'string') return 'string';
  if (p.type === 'number' && p.format === 'double') return 'double';
  if (p.type === 'integer' || p.type === 'number') {
    const isFlag = Array.isArray(p.enum) && p.enum.length === 2 && p.enum.includes(0) && p.enum.includes(1);
    if (isFlag && !/`0`=/.test(p.description ?? '')) return 'flag';
    if (p.format === 'int64') return 'int64';
    if (p.format === 'int32') return 'int32';
    return db?.type === 'smallint' ? 'int16' : 'int32';
  }
  throw new Error(`unmapped property shape: ${JSON.stringify(p).slice(0, 120)}`);
}

/** The schema variant that carries nullability and default for composite fields. */
function primary(p: ApiSchema): ApiSchema {
  return p.oneOf?.[0] ?? p;
}

/** Enum values with the names the service's descriptions give them. */
export function parseEnum(p: ApiSchema, facts: DomainFacts): EnumValue[] | undefined {
  const names = new Map<number, string>();
  for (const m of (p.description ?? '').matchAll(/`(-?\d+)`\s*=\s*([A-Z][A-Z0-9_]*)/g)) {
    names.set(Number(m[1]), m[2] ?? '');
  }
  const values: (number | string)[] = [];
  const add = (v: number | string): void => {
    if (!values.includes(v)) values.push(v);
  };
  for (const v of p.enum ?? []) if (typeof v === 'number' || typeof v === 'string') add(v);
  for (const v of names.keys()) add(v);
  for (const v of facts.values ?? []) add(v);
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'number')) (values as number[]).sort((a, b) => a - b);
  return values.map((value) => {
    const name = typeof value === 'number' ? names.get(value) : undefined;
    return name === undefined ? { value } : { value, name };
  });
}

/** Reads a column default: a JSON value, `now`, or undefined when there is none. */
export function parseDbDefault(def: string | null): { value?: unknown; now?: boolean } | undefined {
  if (def === null) return undefined;
  if (/now\(\)/.test(def)) return { now: true };
  if (def === 'NULL') return { value: null };
  const str = /^'((?:[^']|'')*)'(?:::[a-z ]+)?$/.exec(def);
  if (str) return { value: (str[1] ?? '').replace(/''/g, "'") };
  if (/^-?\d+(\.\d+)?$/.test(def)) return { value: Number(def) };
  return {};
}

function toRef(db: DbField | undefined, families: ReadonlySet<string>): FieldRef | undefined {
  const fk = db?.fkeys[0];
  if (!fk) return undefined;
  return { family: fk.table, field: fk.field, isFamily: families.has(fk.table) };
}

function domainFacts(table: DbTable | undefined, name: string): DomainFacts {
  const facts: DomainFacts = {};
  const names = table?.fields.map((f) => f.name) ?? [];
  for (const c of table?.constraints ?? []) {
    if (c.domain && c.type === 'check' && domainField(c, names) === name) {
      Object.assign(facts, parseDomainCheck(c.def));
    }
  }
  return facts;
}

function exclusive(v: boolean | number | undefined, bound: number | undefined): number | undefined {
  if (typeof v === 'number') return v;
  return v === true ? bound : undefined;
}

/** Derives every fact about one field from its API property and its column. */
export function buildField(
  name: string,
  p: ApiSchema,
  table: DbTable | undefined,
  ctx: { writable: boolean; families: ReadonlySet<string> },
): Field {
  const db = table?.fields.find((f) => f.name === name);
  const type = fieldType(p, db);
  const head = primary(p);
  const facts = domainFacts(table, name);
  const dbDefault = parseDbDefault(db?.default ?? null);
  const hasApiDefault = Object.prototype.hasOwnProperty.call(head, 'default');
  const enumValues = type === 'flag' ? undefined : parseEnum(p, facts);
  const rawExMin = exclusive(p.exclusiveMinimum, p.minimum) ?? facts.exclusiveMinimum;
  const isInteger = type === 'int16' || type === 'int32' || type === 'int64';
  // For integers "greater than n" is "at least n + 1", the form the brief uses.
  const exMin = isInteger || rawExMin === undefined ? undefined : rawExMin;
  const intMin = isInteger && rawExMin !== undefined ? rawExMin + 1 : undefined;
  const field: Record<string, unknown> = {
    name,
    type,
    format: head.format && head.format !== 'json' && head.format !== 'int32' && head.format !== 'int64' && head.format !== 'double' ? head.format : undefined,
    nullable: db ? !db.notnull : head.nullable === true,
    default: hasApiDefault ? head.default : dbDefault?.value,
    defaultNow: dbDefault?.now === true ? true : undefined,
    enum: enumValues,
    pattern: p.pattern ?? db?.pattern ?? facts.pattern ?? undefined,
    minimum: enumValues ? undefined : (intMin ?? (exMin === undefined ? (p.minimum ?? facts.minimum) : undefined)),
    maximum: enumValues ? undefined : (p.maximum ?? facts.maximum),
    exclusiveMinimum: enumValues ? undefined : exMin,
    minLength: p.minLength,
    maxLength: p.maxLength,
    text: facts.text,
    jsonKind: facts.jsonKind,
    ref: toRef(db, ctx.families),
    timestamp: type === 'int64' && /unix timestamp/i.test(head.description ?? ''),
    writable: ctx.writable && !SERVICE_SET.has(name),
    required: Boolean(db && db.notnull && db.default === null && !db.identity && !db.generated && !hasApiDefault),
    filterable: Boolean(db) && !isComposite(type),
    indexed: db?.indexed === true,
    stored: Boolean(db),
  };
  for (const k of Object.keys(field)) if (field[k] === undefined) delete field[k];
  return field as unknown as Field;
}

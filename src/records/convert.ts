/**
 * HTTPie-style field arguments to a record body: `field=text` converted by the
 * field's type, `field:=<json>` taken as a raw JSON value, and the pseudo
 * fields `extdata.NAME`, `tags`, `+tags`, `-tags`. Pure; unknown fields are
 * kept as given so that validation names them with a suggestion.
 */
import { enumValueOf, findField, type ResourceFamily, type ResourceField } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { parseIsoToUnix } from './timestamp.js';

/** A record body as sent: field names (and pseudo fields) to JSON values. */
export type RecordBody = Record<string, unknown>;

/** One `key=text` or `key:=json` argument. */
export interface Assignment {
  readonly key: string;
  /** `:=`: the text is a JSON value. */
  readonly raw: boolean;
  readonly text: string;
}

const TAG_KEYS = new Set(['tags', '+tags', '-tags']);
const INTEGER = /^[-+]?\d+$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Sets an own member, whatever its name: `body[key] = v` would change the
 * prototype for `__proto__` (and drop the field unseen) instead of making a
 * member that validation then names as an unknown field.
 */
export function setOwn(body: RecordBody, key: string, value: unknown): void {
  Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Splits `key=text` / `key:=json` at the first `=`; a bare word is a usage error. */
export function parseAssignment(arg: string): Assignment {
  const at = arg.indexOf('=');
  if (at <= 0 || (at === 1 && arg[0] === ':')) {
    throw new UsageError(`cannot read '${shown(arg, 80)}' as a field value; write field=value, or field:=<json> for a raw JSON value`);
  }
  const raw = arg[at - 1] === ':';
  return { key: arg.slice(0, raw ? at - 1 : at), raw, text: arg.slice(at + 1) };
}

function parseJson(key: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`'${shown(key, 80)}:=' takes a JSON value, not '${shown(text, 40)}'; quote strings as in ${shown(key, 80)}:='"text"', or use ${shown(key, 80)}=text`);
  }
}

function enumText(family: ResourceFamily, field: ResourceField, text: string): number | string {
  const named = enumValueOf(field, text);
  if (named !== undefined) return named;
  if (INTEGER.test(text)) return Number(text);
  const names = (field.enum ?? []).map((e) => e.name ?? String(e.value)).join(', ');
  throw new UsageError(`unknown value '${shown(text, 40)}' for ${family.name}.${field.name}; use one of ${names}`);
}

function integerText(family: ResourceFamily, field: ResourceField, text: string, zone: string): number {
  if (field.enum?.some((e) => e.name !== undefined)) return enumText(family, field, text) as number;
  if (INTEGER.test(text)) return Number(text);
  if (field.timestamp) {
    const seconds = parseIsoToUnix(text, zone);
    if (seconds !== undefined) return seconds;
    throw new UsageError(`${family.name}.${field.name} takes a date (2026-05-01), a date-time (2026-05-01T09:30) or Unix seconds, not '${shown(text, 40)}'`);
  }
  throw new UsageError(`${family.name}.${field.name} takes a whole number, not '${shown(text, 40)}'`);
}

function compositeText(family: ResourceFamily, field: ResourceField, text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    throw new UsageError(`${family.name}.${field.name} takes JSON (${field.type}); write ${field.name}:='<json>'`);
  }
}

/**
 * A field's value from command-line text, by the field's type: whole numbers,
 * enum names (case-insensitive), dates for timestamps, numbers, flags
 * (0/1/true/false); strings stay strings ("00123" is sent as "00123").
 */
export function convertText(family: ResourceFamily, field: ResourceField, text: string, zone: string): unknown {
  if (field.type === 'string') return field.enum ? (enumValueOf(field, text) ?? text) : text;
  if (text === '') {
    if (field.nullable) return null;
    throw new UsageError(`${family.name}.${field.name} needs a value; it cannot be empty or null`);
  }
  switch (field.type) {
    case 'int16':
    case 'int32':
    case 'int64':
      return integerText(family, field, text, zone);
    case 'double':
      if (NUMBER.test(text)) return Number(text);
      throw new UsageError(`${family.name}.${field.name} takes a number such as 12.5, not '${shown(text, 40)}'`);
    case 'flag': {
      const v = text.toLowerCase();
      if (v === '1' || v === 'true') return 1;
      if (v === '0' || v === 'false') return 0;
      throw new UsageError(`${family.name}.${field.name} is a flag; use 0, 1, true or false, not '${shown(text, 40)}'`);
    }
    default:
      return compositeText(family, field, text);
  }
}

function tagList(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

function pseudoValue(a: Assignment): unknown {
  if (a.raw) return parseJson(a.key, a.text);
  if (TAG_KEYS.has(a.key)) return tagList(a.text);
  throw new UsageError(`'extdata' takes extension fields one by one: extdata.NAME=value, or extdata:='{"NAME": …}'`);
}

/**
 * Applies the arguments, in order, over `base` (the --data object): later
 * arguments override earlier values; `extdata.NAME` members merge.
 */
export function applyAssignments(family: ResourceFamily, base: RecordBody, args: readonly string[], zone: string): RecordBody {
  const body: RecordBody = { ...base };
  if (isPlainObject(body.extdata)) body.extdata = { ...body.extdata };
  assignInto(family, body, args, zone);
  return body;
}

const isPlainObject = (v: unknown): v is RecordBody => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The same onto `body` itself, which the caller owns (its extdata object
 * too): an import builds a row a cell at a time without copying the row for
 * each cell, which made a wide file's rows cost the square of its columns.
 */
export function assignInto(family: ResourceFamily, body: RecordBody, args: readonly string[], zone: string): void {
  for (const a of args.map(parseAssignment)) {
    if (a.key.startsWith('extdata.')) {
      const name = a.key.slice('extdata.'.length);
      if (name === '') throw new UsageError(`name the extension field: extdata.NAME=value`);
      const ext = isPlainObject(body.extdata) ? body.extdata : {};
      setOwn(ext, name, a.raw ? parseJson(a.key, a.text) : a.text);
      body.extdata = ext;
      continue;
    }
    if (a.key === 'extdata' || TAG_KEYS.has(a.key)) {
      setOwn(body, a.key, pseudoValue(a));
      continue;
    }
    const field = findField(family, a.key);
    setOwn(body, a.key, a.raw ? parseJson(a.key, a.text) : field ? convertText(family, field, a.text, zone) : a.text);
  }
}

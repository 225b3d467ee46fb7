/**
 * The query body (JSON or form) to a checked request: booleans, integers and
 * lists arrive as JSON values or as form strings, and are normalised here.
 * Paths and the filter are only shaped here; their meaning is checked later.
 * Members the service does not define are ignored, as the service ignores
 * them (the vendor's own client sends `extdata: 1`); known ones are checked
 * strictly, and against the limits (search terms, sort keys, fields).
 */
import { badRequest } from '../../errors.js';
import { excerpt, excerptValue, LIMITS, overLimit } from '../../limits.js';

/** One selected column: the member name in the answer and the field path it reads. */
export interface Selection {
  readonly name: string;
  readonly path: string;
}

/** One sort key. */
export interface SortKey {
  readonly path: string;
  readonly descending: boolean;
}

/** A query body with every parameter checked for shape. */
export interface QueryRequest {
  /** The raw filter (from `filter` or `filters`), undefined when there is none. */
  readonly filter: unknown;
  /** Selected columns; undefined means every field of the family. */
  readonly fields: readonly Selection[] | undefined;
  readonly sort: readonly SortKey[];
  /** Undefined means the default (1000, or unbounded on export). */
  readonly limit: number | undefined;
  readonly offset: number;
  readonly count: boolean;
  readonly distinct: boolean;
  readonly export: boolean;
  /** Search terms from `query`, already split. */
  readonly terms: readonly string[];
  readonly expand: readonly string[];
}

/** Largest page a query may ask for. */
export const MAX_LIMIT = 10000;
/** Page size when the request gives none. */
export const DEFAULT_LIMIT = 1000;

/** True for a value a form or JSON body uses to mean "not given". */
function absent(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** A boolean parameter: JSON true/false, 1/0, or the form strings "1", "0", "true", "false". */
export function toBoolean(name: string, v: unknown): boolean {
  if (absent(v)) return false;
  if (v === true || v === 1 || v === '1' || v === 'true') return true;
  if (v === false || v === 0 || v === '0' || v === 'false') return false;
  throw badRequest(`parameter '${name}' must be a boolean (true, false, 1 or 0), not ${excerptValue(v)}`);
}

function toInteger(name: string, v: unknown, min: number, max: number): number {
  const n = typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw badRequest(`parameter '${name}' must be ${range}, not ${excerptValue(v)}`);
  }
  return n;
}

/**
 * An ordered list from a JSON array, a form object with numeric keys, or a
 * single string (split on commas); undefined when the value is none of these.
 */
export function toList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (isNumericObject(v)) return numericValues(v);
  return undefined;
}

/** Whether a value is a plain object whose keys are all array indexes (how a form spells a list). */
export function isNumericObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => /^\d+$/.test(k));
}

/** The values of a numeric-keyed object in index order. */
export function numericValues(v: Record<string, unknown>): unknown[] {
  return Object.keys(v)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => v[k]);
}

/** 400 when a list parameter holds more items than its limit, or a path longer than a path may be. */
function checkPaths(name: string, what: string, paths: readonly unknown[], limit: number): void {
  if (paths.length > limit) throw overLimit(`parameter '${name}' has ${paths.length.toLocaleString('en-US')} ${what}`, limit);
  for (const p of paths) {
    if (typeof p === 'string' && p.length > LIMITS.pathLength) {
      throw overLimit(`parameter '${name}' holds '${excerpt(p)}', which is longer than ${LIMITS.pathLength} characters`, LIMITS.pathLength);
    }
  }
}

function stringList(name: string, v: unknown, what: string, limit: number): string[] {
  if (absent(v)) return [];
  const list = toList(v);
  if (!list || !list.every((x) => typeof x === 'string' && x !== '')) throw badRequest(`parameter '${name}' must be an array of names`);
  checkPaths(name, what, list, limit);
  return list as string[];
}

/** `fields` as an array, or an object of alias → path (numeric or empty keys, as `fields[]` in a form, mean no alias). */
function parseFields(v: unknown): Selection[] | undefined {
  if (absent(v)) return undefined;
  const entries: [string | undefined, unknown][] = Array.isArray(v) || typeof v === 'string'
    ? (toList(v) ?? []).map((p) => [undefined, p])
    : typeof v === 'object' && v !== null
      ? Object.entries(v).map(([k, p]) => [k === '' || /^\d+$/.test(k) ? undefined : k, p])
      : [];
  if (entries.length === 0) throw badRequest("parameter 'fields' must be a non-empty array of field paths or an object of alias: path");
  checkPaths('fields', 'paths', entries.map(([, p]) => p), LIMITS.fields);
  const seen = new Map<string, Selection>();
  for (const [alias, path] of entries) {
    if (typeof path !== 'string' || path === '') throw badRequest(`parameter 'fields' holds ${excerptValue(path)}, which is not a field path`);
    const name = alias ?? path;
    seen.set(name, { name, path });
  }
  return [...seen.values()];
}

function parseSort(v: unknown): SortKey[] {
  return stringList('sort', v, 'keys', LIMITS.sortKeys).map((s) => {
    const descending = s.startsWith('-');
    const path = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
    if (path === '') throw badRequest(`parameter 'sort' holds '${s}', which names no field`);
    return { path, descending };
  });
}

function parseTerms(v: unknown): string[] {
  if (absent(v)) return [];
  if (typeof v !== 'string' && typeof v !== 'number') throw badRequest("parameter 'query' must be a search string");
  const text = String(v);
  if (text.length > LIMITS.searchLength) {
    throw overLimit(`parameter 'query' is ${text.length.toLocaleString('en-US')} characters long`, LIMITS.searchLength, 'search for fewer words, or use a filter');
  }
  const terms = text.split(/\s+/u).filter(Boolean);
  if (terms.length > LIMITS.searchTerms) {
    throw overLimit(`parameter 'query' has ${terms.length} search terms`, LIMITS.searchTerms, 'search for fewer words, or use a filter');
  }
  return terms;
}

/** The members the query operation defines, read as own properties only. */
const MEMBERS = ['filter', 'filters', 'fields', 'sort', 'limit', 'offset', 'count', 'distinct', 'export', 'query', 'expand'] as const;
type Members = Partial<Record<(typeof MEMBERS)[number], unknown>>;

function members(body: Record<string, unknown>): Members {
  const out: Members = {};
  for (const name of MEMBERS) if (Object.hasOwn(body, name)) out[name] = body[name];
  return out;
}

function pickFilter(b: Members): unknown {
  const hasFilter = !absent(b.filter);
  const hasFilters = !absent(b.filters);
  if (hasFilter && hasFilters) throw badRequest("give either 'filter' or 'filters', not both (they mean the same)");
  return hasFilter ? b.filter : hasFilters ? b.filters : undefined;
}

/** Checks the shape of a query body and normalises its parameters; members the service does not define are ignored. */
export function parseRequest(body: unknown): QueryRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the query body must be an object of parameters');
  const b = members(body as Record<string, unknown>);
  const count = toBoolean('count', b.count);
  const common = { filter: pickFilter(b), count, distinct: toBoolean('distinct', b.distinct), export: toBoolean('export', b.export), terms: parseTerms(b.query) };
  // A count ignores the selection and the page, so they are not even checked.
  if (count) return { ...common, fields: undefined, sort: [], limit: undefined, offset: 0, expand: [] };
  return {
    ...common,
    fields: parseFields(b.fields),
    sort: parseSort(b.sort),
    limit: absent(b.limit) ? undefined : toInteger('limit', b.limit, 1, MAX_LIMIT),
    offset: absent(b.offset) ? 0 : toInteger('offset', b.offset, 0, Number.MAX_SAFE_INTEGER),
    expand: stringList('expand', b.expand, 'names', LIMITS.fields),
  };
}

/**
 * A filter tree to a parameterised SQL condition, with PostgreSQL semantics:
 * a comparison with NULL is not true (so `!=` never matches a NULL value),
 * `= null` is IS NULL and `!=` / `<>` null is IS NOT NULL; `~` operators are
 * regular expressions and `~~` operators LIKE patterns, `*` forms ignoring
 * case (Unicode-aware, through the database's svc_regexp and svc_like).
 * Plain column expressions stay bare so indexed columns can be used.
 */
import type { ResourceFamily, ResourceField } from '../../../catalogue/index.js';
import { badRequest, type HttpError } from '../../errors.js';
import { excerpt, excerptValue, LIMITS, overLimit } from '../../limits.js';
import { checkPatternBudget } from '../../pattern-budget.js';
import { compileRegex } from '../../regex.js';
import type { FilterNode, OperatorInfo } from './filter-tree.js';
import type { PathResolver, ResolvedPath } from './paths.js';
import { toList } from './parse-request.js';
import type { SqlParams } from './sql-params.js';

const INTEGER = /^\s*-?\d+\s*$/;
// Unambiguous (one way to match any text), so a long run of digits cannot make it backtrack.
const NUMBER = /^\s*-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const INTEGER_TYPES = new Set(['int16', 'int32', 'int64', 'flag', 'binfile']);

function describe(v: unknown): string {
  return excerptValue(v);
}

function notExact(family: ResourceFamily, path: string, v: unknown): HttpError {
  return badRequest(
    `filter on '${path}' of ${family.name}: ${describe(v)} is beyond ±(2^53 − 1), the largest integer the sandbox compares exactly; use a smaller value`,
  );
}

/**
 * A filter value converted to what the field's column stores; 400 naming the
 * field when it cannot be (a non-finite number, such as JSON's 1e400, never
 * can). An empty string on a non-text field is null, since a form has no
 * other way to send null.
 */
export function coerce(family: ResourceFamily, path: string, field: ResourceField | undefined, v: unknown): unknown {
  if (v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && !Number.isFinite(v)) {
    throw badRequest(
      `filter on '${path}' of ${family.name}: ${describe(v)} is not a finite number (a JSON number beyond ±1.8e308, such as 1e400, overflows to it); send a finite value`,
    );
  }
  if (typeof v === 'object' || v === undefined) throw badRequest(`filter on '${path}' of ${family.name}: ${describe(v)} is not a single value`);
  if (!field) return v; // Extension values have no declared type: compared as given.
  if (v === '' && field.type !== 'string') return null; // How a form spells null.
  if (INTEGER_TYPES.has(field.type)) {
    const n = typeof v === 'string' && INTEGER.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) throw badRequest(`filter on '${path}' of ${family.name}: ${describe(v)} is not an integer`);
    if (!Number.isSafeInteger(n)) throw notExact(family, path, v);
    return n;
  }
  if (field.type === 'double') {
    const n = typeof v === 'string' && NUMBER.test(v) ? Number(v) : v;
    if (typeof n === 'number' && Number.isFinite(n)) return n;
    throw badRequest(`filter on '${path}' of ${family.name}: ${describe(v)} is not a number`);
  }
  return String(v);
}

/** An extension value as the number it is or reads as (svc_number), else NULL. */
function extensionNumber(e: string): string {
  return `(CASE WHEN typeof(${e}) IN ('integer', 'real') THEN ${e} ELSE svc_number(${e}) END)`;
}

function compareSql(family: ResourceFamily, target: ResolvedPath, op: OperatorInfo, value: unknown, params: SqlParams): string {
  const v = coerce(family, target.path, target.field, value);
  if (v === null && op.symbol === '=') return `${target.sql} IS NULL`;
  if (v === null && op.negated) return `${target.sql} IS NOT NULL`;
  if (!target.field && typeof v === 'number') {
    // The service keeps an extension value that reads as a number as that number (extdatanumeric.number) and
    // compares a number with it: "3" < 10 however the value was sent; a text that is no number matches no number.
    return `${extensionNumber(target.sql)} ${op.sql} ${params.add(v)}`;
  }
  if (!target.field && typeof v === 'string' && NUMBER.test(v)) {
    // A form sends every value as text: an extension value stored as a number compares numerically.
    const e = target.sql;
    return `(CASE WHEN typeof(${e}) IN ('integer', 'real') THEN ${e} ${op.sql} ${params.add(Number(v))} ELSE ${e} ${op.sql} ${params.add(v)} END)`;
  }
  return `${target.sql} ${op.sql} ${params.add(v)}`;
}

function setSql(family: ResourceFamily, target: ResolvedPath, op: OperatorInfo, value: unknown, params: SqlParams): string {
  const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? toList(value) : [value];
  if (!list) throw badRequest(`filter on '${target.path}' of ${family.name}: operator '${op.symbol}' needs an array of values`);
  if (list.length > LIMITS.inList) {
    throw overLimit(`filter on '${target.path}' of ${family.name}: the ${op.symbol} list has ${list.length.toLocaleString('en-US')} values`, LIMITS.inList, 'split the query');
  }
  const values = list.map((x) => coerce(family, target.path, target.field, x));
  // One parameter for the whole list keeps the SQL text the same whatever the list's length.
  const json = params.add(JSON.stringify(values));
  if (target.field) return `${target.sql} ${op.sql} (SELECT value FROM json_each(${json}))`;
  // An extension value that reads as a number is also that number (as compareSql has it).
  const numbers = `(SELECT value FROM json_each(${json}) WHERE type IN ('integer', 'real'))`;
  const hit = `(${target.sql} IN (SELECT value FROM json_each(${json})) OR coalesce(svc_number(${target.sql}) IN ${numbers}, 0))`;
  return op.negated ? `NOT ${hit}` : hit;
}

function patternSql(family: ResourceFamily, target: ResolvedPath, op: OperatorInfo, value: unknown, params: SqlParams): string {
  if (target.field && target.field.type !== 'string') {
    throw badRequest(`filter on '${target.path}' of ${family.name}: operator '${op.symbol}' applies to text fields, and this one is ${target.field.type}`);
  }
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw badRequest(`filter on '${target.path}' of ${family.name}: operator '${op.symbol}' needs a pattern string, not ${describe(value)}`);
  }
  const pattern = String(value);
  if (pattern.length > LIMITS.patternLength) {
    throw overLimit(`filter on '${target.path}' of ${family.name}: the pattern is ${pattern.length.toLocaleString('en-US')} characters long`, LIMITS.patternLength);
  }
  if (op.kind === 'regex') checkRegex(family, target, pattern, op.ignoreCase);
  // Always the JavaScript functions, never SQLite's own LIKE: only they check the pattern budget.
  const fn = op.kind === 'regex' ? 'svc_regexp' : 'svc_like';
  return `${fn}(${target.sql}, ${params.add(pattern)}, ${op.ignoreCase ? 1 : 0}) = ${op.negated ? 0 : 1}`;
}

/** 400 naming the pattern when it is not a regular expression, or one the linear-time engine cannot run. */
function checkRegex(family: ResourceFamily, target: ResolvedPath, pattern: string, ignoreCase: boolean): void {
  checkPatternBudget(); // Compiling a long Unicode pattern takes tens of ms: it counts toward the budget.
  const rx = compileRegex(pattern, ignoreCase);
  if (rx.ok) return;
  const where = `filter on '${target.path}' of ${family.name}`;
  if (rx.reason === 'invalid') throw badRequest(`${where}: invalid regular expression '${excerpt(pattern)}': ${excerpt(rx.detail, 160)}`);
  throw badRequest(
    `${where}: the regular expression '${excerpt(pattern)}' is not supported: the sandbox evaluates regular expressions in linear time ` +
      `and does not support that construct (backreferences, lookahead and lookbehind): ${excerpt(rx.detail, 80)}`,
  );
}

function conditionSql(family: ResourceFamily, resolver: PathResolver, node: Extract<FilterNode, { kind: 'condition' }>, params: SqlParams): string {
  const target = resolver.resolve(node.path, 'filter');
  switch (node.op.kind) {
    case 'compare':
      return compareSql(family, target, node.op, node.value, params);
    case 'set':
      return setSql(family, target, node.op, node.value, params);
    default:
      return patternSql(family, target, node.op, node.value, params);
  }
}

/** Operands joined at one level before grouping; a long flat chain would pass SQLite's expression depth (1,000). */
const FLAT_JOIN = 8;

/** Joins operands as a balanced tree of parenthesised groups, so the SQL nests log(n) deep, not n. */
function balanced(parts: readonly string[], op: string): string {
  if (parts.length <= FLAT_JOIN) return parts.join(op);
  const groups: string[] = [];
  const size = Math.ceil(parts.length / FLAT_JOIN);
  for (let i = 0; i < parts.length; i += size) groups.push(`(${balanced(parts.slice(i, i + size), op)})`);
  return groups.join(op);
}

/** Compiles a filter tree to an SQL condition, resolving its paths (and joins) through `resolver`. */
export function compileFilter(family: ResourceFamily, resolver: PathResolver, node: FilterNode, params: SqlParams): string {
  if (node.kind === 'condition') return conditionSql(family, resolver, node, params);
  const parts = node.children.map((c) => compileFilter(family, resolver, c, params));
  if (parts.length === 0) return '1';
  const joined = balanced(parts, node.join === 'OR' ? ' OR ' : ' AND ');
  return node.join === 'NOT' ? `NOT (${joined})` : `(${joined})`;
}

/**
 * The fields `query` searches: the family's stored string fields under the
 * single-line text rule (names, numbers, e-mail addresses, cities and the
 * like), leaving out multi-line texts such as descriptions and addresses and
 * unconstrained codes such as currency or country.
 */
export function searchableFields(family: ResourceFamily): ResourceField[] {
  return family.fields.filter((f) => f.type === 'string' && f.text === 'single-line' && f.filterable);
}

function likeLiteral(term: string): string {
  return `%${term.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * The condition for search terms: every term must occur (case-insensitive,
 * Unicode-aware substring) in at least one searchable field. A family without
 * searchable fields matches nothing. One svc_search call per row tests every
 * term against every field; never SQLite's own LIKE, which the pattern budget
 * could not stop, and which over a long text costs as much (length × term).
 */
export function compileSearch(family: ResourceFamily, resolver: PathResolver, terms: readonly string[], params: SqlParams): string | undefined {
  if (terms.length === 0) return undefined;
  const fields = searchableFields(family);
  if (fields.length === 0) return '0';
  const patterns = params.add(JSON.stringify(terms.map(likeLiteral)));
  return `svc_search(${patterns}, ${fields.map((f) => resolver.resolve(f.name, 'filter').sql).join(', ')}) = 1`;
}

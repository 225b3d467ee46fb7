/**
 * The filter of one page of keyset paging: the caller's filter AND `ID > after`,
 * written so that it nests no deeper and (when it already bounds ID from
 * below) holds no more conditions than the caller's filter. Any filter the
 * service takes for a count then takes a page too: wrapping it in one more
 * `["AND", filter, {ID: …}]` would add a level, past the service's limit for a
 * filter already at it.
 */

import { shown } from '../util/shown.js';

const NUMERIC = /^\d+$/;
const JOINS = new Set(['AND', 'OR', 'NOT']);

/** Whether a filter is itself a composite: an `["AND"|"OR"|"NOT", …]` array, or the same spelled as a numeric-keyed object. */
function isComposite(filter: object): boolean {
  const keys = Object.keys(filter);
  if (!Array.isArray(filter) && (keys.length === 0 || !keys.every((k) => NUMERIC.test(k)))) return false;
  const head: unknown = Array.isArray(filter) ? filter[0] : (filter as Record<string, unknown>)[String(Math.min(...keys.map(Number)))];
  return typeof head === 'string' && JOINS.has(head.toUpperCase());
}

/** A fresh numeric key of an object filter (composites sit under them). */
function freeKey(filter: Record<string, unknown>): string {
  let n = 0;
  while (Object.hasOwn(filter, String(n))) n++;
  return String(n);
}

/** A copy of an object filter, own members only (even one named `__proto__`). */
function copyOf(filter: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The ID member of an object filter ANDed with `ID > after` as one operator
 * object, or undefined when they cannot share one. An existing `>` or `>=`
 * bound is tightened rather than joined by a second condition.
 */
function mergedId(value: unknown, after: number, upTo: number | null): Record<string, unknown> | undefined {
  let ops: Record<string, unknown>;
  if (Array.isArray(value)) ops = { IN: value };
  else if (typeof value !== 'object' || value === null) ops = { '=': value };
  else {
    const keys = Object.keys(value);
    if (keys.length === 0 || keys.some((k) => NUMERIC.test(k))) return undefined;
    ops = copyOf(value as Record<string, unknown>);
  }
  return withUpper(withLower(ops, after), upTo);
}

/** `ops` AND `ID > after`, tightening a `>` or `>=` it has; undefined when one is not a number. */
function withLower(ops: Record<string, unknown> | undefined, after: number): Record<string, unknown> | undefined {
  if (!ops) return undefined;
  const gt = ops['>'];
  const ge = ops['>='];
  if (Object.hasOwn(ops, '>')) {
    if (typeof gt !== 'number') return undefined;
    ops['>'] = Math.max(gt, after);
    return ops;
  }
  if (Object.hasOwn(ops, '>=')) {
    if (typeof ge !== 'number') return undefined;
    // ID >= n and ID > after: the tighter of the two, as one condition.
    if (after < ge) return ops;
    delete ops['>='];
  }
  ops['>'] = after;
  return ops;
}

/** `ops` AND `ID <= upTo` (none when null), tightening a `<=` or `<` it has; undefined when one is not a number. */
function withUpper(ops: Record<string, unknown> | undefined, upTo: number | null): Record<string, unknown> | undefined {
  if (!ops || upTo === null) return ops;
  const le = ops['<='];
  const lt = ops['<'];
  if (Object.hasOwn(ops, '<=')) {
    if (typeof le !== 'number') return undefined;
    ops['<='] = Math.min(le, upTo);
    return ops;
  }
  if (Object.hasOwn(ops, '<')) {
    if (typeof lt !== 'number') return undefined;
    // ID < n and ID <= upTo: the tighter of the two, as one condition.
    if (lt <= upTo) return ops;
    delete ops['<'];
  }
  ops['<='] = upTo;
  return ops;
}

/** `filter` AND `ID > after` (AND `ID <= upTo`, for a range), without a new level of nesting (see the top of this file). */
export function pageFilter(filter: Record<string, unknown> | undefined, after: number, upTo: number | null = null): Record<string, unknown> {
  const bound = { ID: upTo === null ? { '>': after } : { '>': after, '<=': upTo } };
  if (filter === undefined || filter === null || (!Array.isArray(filter) && Object.keys(filter).length === 0)) return bound;
  // A composite at the top sits at the first level; under a numeric key of an object it sits there too.
  if (isComposite(filter)) return { 0: filter, ...bound };
  // Not a filter the service reads (it answers so): sent as it is, beside the bound.
  if (Array.isArray(filter)) return { 0: ['AND', filter, bound] };
  const out = copyOf(filter);
  if (!Object.hasOwn(out, 'ID')) {
    out.ID = bound.ID;
    return out;
  }
  const merged = mergedId(out.ID, after, upTo);
  if (merged) out.ID = merged;
  // An ID member that takes no operator beside it: the bound as a composite of its own, one level down like the filter's own.
  else out[freeKey(out)] = ['AND', bound];
  return out;
}

/** The operator object of a member's value (`3` is `{"=": 3}`, `[1, 2]` `{"IN": [1, 2]}`), or undefined for a composite. */
function operatorsOf(value: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(value)) return { IN: value };
  if (typeof value !== 'object' || value === null) return { '=': value };
  const keys = Object.keys(value);
  if (keys.length === 0 || keys.some((k) => NUMERIC.test(k))) return undefined;
  return copyOf(value as Record<string, unknown>);
}

/**
 * `filter` AND `{field: ops}` (an operator object such as `{">=": 1700000000}`),
 * without a new level of nesting: a member of the top-level object, merged
 * into the field's own member when their operators differ (or are bounds of
 * the same side, tightened), else beside it one level down, as the filter's
 * own composites sit. What the service takes for a count it then takes with
 * the condition added (see the top of this file).
 */
export function andCondition(filter: Record<string, unknown> | undefined, field: string, ops: Record<string, unknown>): Record<string, unknown> {
  const alone = (): Record<string, unknown> => Object.defineProperty({}, field, { value: ops, enumerable: true, writable: true, configurable: true });
  if (filter === undefined || filter === null || (!Array.isArray(filter) && Object.keys(filter).length === 0)) return alone();
  if (isComposite(filter)) return { 0: filter, ...alone() };
  if (Array.isArray(filter)) return { 0: ['AND', filter, alone()] };
  const out = copyOf(filter);
  if (!Object.hasOwn(out, field)) return Object.defineProperty(out, field, { value: ops, enumerable: true, writable: true, configurable: true });
  const own = operatorsOf(out[field]);
  let merged: Record<string, unknown> | undefined = own;
  for (const [op, v] of Object.entries(ops)) {
    if (!merged) break;
    if (!Object.hasOwn(merged, op)) merged[op] = v;
    else if ((op === '>' || op === '>=') && typeof merged[op] === 'number' && typeof v === 'number') merged[op] = Math.max(merged[op] as number, v);
    else if ((op === '<' || op === '<=') && typeof merged[op] === 'number' && typeof v === 'number') merged[op] = Math.min(merged[op] as number, v);
    else merged = undefined;
  }
  if (merged) out[field] = merged;
  else out[freeKey(out)] = ['AND', alone()];
  return out;
}

/** The largest ID a JSON number holds exactly (2^53 − 1). */
const EXACT_IDS = '2^53 − 1 (9007199254740991)';

/** Why paging by ID cannot go on past a record whose ID is `value` (read as `id`), coming after ID `last` on a page asked for IDs above `after`; undefined when it can. */
export function stuckPaging(value: unknown, id: number, last: number, after: number): string | undefined {
  if (id > last && Number.isSafeInteger(id)) return undefined;
  const seen = shown(String(value), 40);
  if (!Number.isFinite(id)) return `paging by ID stopped: the service answered a record whose ID is ${seen}, not a number`;
  if (!Number.isInteger(id)) return `paging by ID stopped: the service answered a record whose ID is ${seen}, not a whole number`;
  if (!Number.isSafeInteger(id)) {
    return `paging by ID stopped at ID ${seen}: IDs past ${EXACT_IDS} cannot be paged exactly (JSON numbers round them, so ID > last would repeat or skip records); read them with --sort +ID --limit N --offset K instead`;
  }
  if (last !== after) return `paging by ID stopped: the service answered ID ${seen} after ID ${last}, out of ID order, so the pages would repeat or skip records (it ignored the sort by ID)`;
  return `paging by ID stopped: asked for IDs above ${after}, the service answered ID ${seen}, so the next page would repeat records (it ignored the ID > ${after} condition)`;
}

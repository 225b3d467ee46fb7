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

/** Each bound operator, with its other-strictness partner on the same side and which of two values is tighter. */
const BOUNDS: Readonly<Record<string, { readonly partner: string; readonly tighter: (a: number, b: number) => number }>> = {
  '>': { partner: '>=', tighter: Math.max },
  '>=': { partner: '>', tighter: Math.max },
  '<': { partner: '<=', tighter: Math.min },
  '<=': { partner: '<', tighter: Math.min },
};

/**
 * `ops` AND `op value`, in place. A bound (`>`, `>=`, `<`, `<=`) tightens one
 * the member has on its side, or takes the place of a weaker one, rather
 * than adding a condition; another operator is added when the member has
 * none of it. False when the two cannot share one operator object.
 */
function addOperator(ops: Record<string, unknown>, op: string, value: unknown): boolean {
  const bound = BOUNDS[op];
  if (!bound) {
    if (Object.hasOwn(ops, op)) return false;
    ops[op] = value;
    return true;
  }
  const mine = ops[op];
  const theirs = ops[bound.partner];
  if (typeof value !== 'number' || (Object.hasOwn(ops, op) && typeof mine !== 'number') || (Object.hasOwn(ops, bound.partner) && typeof theirs !== 'number')) return false;
  if (typeof mine === 'number') {
    ops[op] = bound.tighter(mine, value);
    return true;
  }
  if (typeof theirs === 'number') {
    // The partner is the tighter when it bounds past value (ID >= 10 beside ID > 5), or at it with the strict one its own.
    const strictIsNew = op === '>' || op === '<';
    const keeps = bound.tighter(theirs, value) === theirs && (theirs !== value || !strictIsNew);
    if (keeps) return true;
    delete ops[bound.partner];
  }
  ops[op] = value;
  return true;
}

/** `filter` AND `ID > after` (AND `ID <= upTo`, for a range), without a new level of nesting (see the top of this file). */
export function pageFilter(filter: Record<string, unknown> | undefined, after: number, upTo: number | null = null): Record<string, unknown> {
  return andCondition(filter, 'ID', upTo === null ? { '>': after } : { '>': after, '<=': upTo });
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
 * into the field's own member (see addOperator), else beside it one level
 * down, as the filter's own composites sit. What the service takes for a
 * count it then takes with the condition added (see the top of this file).
 */
export function andCondition(filter: Record<string, unknown> | undefined, field: string, ops: Record<string, unknown>): Record<string, unknown> {
  const alone = (): Record<string, unknown> => Object.defineProperty({}, field, { value: { ...ops }, enumerable: true, writable: true, configurable: true });
  if (filter === undefined || filter === null || (!Array.isArray(filter) && Object.keys(filter).length === 0)) return alone();
  // A composite at the top sits at the first level; under a numeric key of an object it sits there too.
  if (isComposite(filter)) return { 0: filter, ...alone() };
  // Not a filter the service reads (it answers so): sent as it is, beside the condition.
  if (Array.isArray(filter)) return { 0: ['AND', filter, alone()] };
  const out = copyOf(filter);
  if (!Object.hasOwn(out, field)) return Object.defineProperty(out, field, { value: { ...ops }, enumerable: true, writable: true, configurable: true });
  const merged = operatorsOf(out[field]);
  if (merged && Object.entries(ops).every(([op, v]) => addOperator(merged, op, v))) out[field] = merged;
  // A member that takes no operator beside it: the condition as a composite of its own, one level down like the filter's own.
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

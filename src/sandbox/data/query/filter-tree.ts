/**
 * The query filter as a tree. A filter is an object (key = field path, value =
 * a plain value for equality or an object of operator → value, several
 * operators ANDed) or a composite array `["AND" | "OR" | "NOT", condition…]`;
 * an object may hold composites under numeric keys. A form spells arrays as
 * objects with numeric keys; both spellings are accepted everywhere.
 */
import { badRequest } from '../../errors.js';
import { isNumericObject, numericValues } from './parse-request.js';

/** How an operator compares. */
export type OperatorKind = 'compare' | 'set' | 'regex' | 'like';

/** One operator of the filter language, as data. */
export interface OperatorInfo {
  /** The spelling in the request (`<>` is read as `!=`). */
  readonly symbol: string;
  readonly kind: OperatorKind;
  /** SQL comparison for `compare`; unused otherwise. */
  readonly sql: string;
  readonly negated: boolean;
  readonly ignoreCase: boolean;
}

const op = (symbol: string, kind: OperatorKind, sql: string, negated = false, ignoreCase = false): OperatorInfo => ({ symbol, kind, sql, negated, ignoreCase });

/** Every operator the service knows, by spelling. `IN` and `!IN` are matched case-insensitively. */
export const OPERATORS: ReadonlyMap<string, OperatorInfo> = new Map(
  [
    op('=', 'compare', '='),
    op('!=', 'compare', '<>', true),
    op('<>', 'compare', '<>', true),
    op('<', 'compare', '<'),
    op('<=', 'compare', '<='),
    op('>', 'compare', '>'),
    op('>=', 'compare', '>='),
    op('IN', 'set', 'IN'),
    op('!IN', 'set', 'NOT IN', true),
    op('~', 'regex', '', false, false),
    op('~*', 'regex', '', false, true),
    op('!~', 'regex', '', true, false),
    op('!~*', 'regex', '', true, true),
    op('~~', 'like', '', false, false),
    op('~~*', 'like', '', false, true),
    op('!~~', 'like', '', true, false),
    op('!~~*', 'like', '', true, true),
  ].map((o) => [o.symbol, o]),
);

/** A filter tree: a condition on one path, or a composite of conditions. */
export type FilterNode =
  | { readonly kind: 'condition'; readonly path: string; readonly op: OperatorInfo; readonly value: unknown }
  | { readonly kind: 'composite'; readonly join: 'AND' | 'OR' | 'NOT'; readonly children: readonly FilterNode[] };

const JOINS = new Set(['AND', 'OR', 'NOT']);

/** The items of a composite (array or numeric-keyed object whose first item names AND/OR/NOT), else undefined. */
function compositeItems(v: unknown): unknown[] | undefined {
  const items = Array.isArray(v) ? v : isNumericObject(v) ? numericValues(v) : undefined;
  const head = items?.[0];
  return typeof head === 'string' && JOINS.has(head.toUpperCase()) ? items : undefined;
}

function parseComposite(items: readonly unknown[]): FilterNode {
  const join = String(items[0]).toUpperCase() as 'AND' | 'OR' | 'NOT';
  const children = items.slice(1).map(parseNode);
  if (children.length === 0) throw badRequest(`filter composite '${join}' needs at least one condition after it`);
  return { kind: 'composite', join, children };
}

function findOperator(path: string, symbol: string): OperatorInfo {
  const info = OPERATORS.get(symbol) ?? OPERATORS.get(symbol.toUpperCase());
  if (!info) throw badRequest(`unknown filter operator '${symbol}' on '${path}'; use one of ${[...OPERATORS.keys()].join(' ')}`);
  return info;
}

const EQUALS = findOperator('', '=');
const IN = findOperator('', 'IN');

function fieldConditions(path: string, value: unknown): FilterNode[] {
  if (Array.isArray(value) || isNumericObject(value)) {
    return [{ kind: 'condition', path, op: IN, value: Array.isArray(value) ? value : numericValues(value) }];
  }
  if (typeof value !== 'object' || value === null) return [{ kind: 'condition', path, op: EQUALS, value }];
  const entries = Object.entries(value);
  if (entries.length === 0) throw badRequest(`filter on '${path}' has an empty operator object`);
  return entries.map(([symbol, v]) => ({ kind: 'condition', path, op: findOperator(path, symbol), value: v }));
}

function parseObject(o: Record<string, unknown>): FilterNode {
  const children: FilterNode[] = [];
  for (const [key, value] of Object.entries(o)) {
    if (/^\d+$/.test(key)) {
      const items = compositeItems(value);
      if (!items) throw badRequest(`filter key '${key}' must hold a composite ["AND" | "OR" | "NOT", condition…]`);
      children.push(parseComposite(items));
    } else children.push(...fieldConditions(key, value));
  }
  return children.length === 1 && children[0] ? children[0] : { kind: 'composite', join: 'AND', children };
}

function parseNode(v: unknown): FilterNode {
  const items = compositeItems(v);
  if (items) return parseComposite(items);
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return parseObject(v as Record<string, unknown>);
  throw badRequest(`a filter condition must be an object of field conditions or a composite ["AND" | "OR" | "NOT", …], not ${JSON.stringify(v)}`);
}

/** Parses a raw filter into a tree; undefined when it holds no condition. */
export function parseFilter(raw: unknown): FilterNode | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0) return undefined;
  return parseNode(raw);
}

/**
 * The query filter as a tree. A filter is an object (key = field path, value =
 * a plain value for equality or an object of operator → value, several
 * operators ANDed) or a composite array `["AND" | "OR" | "NOT", condition…]`;
 * an object may hold composites under numeric keys. A form spells arrays as
 * objects with numeric keys; both spellings are accepted everywhere.
 */
import { badRequest } from '../../errors.js';
import { excerpt, excerptValue, LIMITS, overLimit } from '../../limits.js';
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

/** What parsing has counted so far, checked against the limits as it goes. */
interface Budget {
  conditions: number;
  /** `~` and `~~` conditions among them. */
  patterns: number;
}

/** The items of a composite (array or numeric-keyed object whose first item names AND/OR/NOT), else undefined. */
function compositeItems(v: unknown): unknown[] | undefined {
  const items = Array.isArray(v) ? v : isNumericObject(v) ? numericValues(v) : undefined;
  const head = items?.[0];
  return typeof head === 'string' && JOINS.has(head.toUpperCase()) ? items : undefined;
}

function parseComposite(items: readonly unknown[], depth: number, budget: Budget): FilterNode {
  if (depth > LIMITS.filterDepth) throw overLimit(`filter nests deeper than ${LIMITS.filterDepth} levels`, LIMITS.filterDepth);
  const join = String(items[0]).toUpperCase() as 'AND' | 'OR' | 'NOT';
  const children = items.slice(1).map((item) => parseNode(item, depth, budget));
  if (children.length === 0) throw badRequest(`filter composite '${join}' needs at least one condition after it`);
  return { kind: 'composite', join, children };
}

function findOperator(path: string, symbol: string): OperatorInfo {
  const info = OPERATORS.get(symbol) ?? OPERATORS.get(symbol.toUpperCase());
  if (!info) throw badRequest(`unknown filter operator '${excerpt(symbol)}' on '${excerpt(path)}'; use one of ${[...OPERATORS.keys()].join(' ')}`);
  return info;
}

const EQUALS = findOperator('', '=');
const IN = findOperator('', 'IN');

function fieldConditions(path: string, value: unknown, budget: Budget): FilterNode[] {
  if (path.length > LIMITS.pathLength) throw overLimit(`filter path '${excerpt(path)}' is longer than ${LIMITS.pathLength} characters`, LIMITS.pathLength);
  let nodes: FilterNode[];
  if (Array.isArray(value) || isNumericObject(value)) {
    nodes = [{ kind: 'condition', path, op: IN, value: Array.isArray(value) ? value : numericValues(value) }];
  } else if (typeof value !== 'object' || value === null) {
    nodes = [{ kind: 'condition', path, op: EQUALS, value }];
  } else {
    const entries = Object.entries(value);
    if (entries.length === 0) throw badRequest(`filter on '${excerpt(path)}' has an empty operator object`);
    nodes = entries.map(([symbol, v]) => ({ kind: 'condition', path, op: findOperator(path, symbol), value: v }));
  }
  budget.conditions += nodes.length;
  if (budget.conditions > LIMITS.filterConditions) {
    throw overLimit(`filter has more than ${LIMITS.filterConditions.toLocaleString('en-US')} conditions`, LIMITS.filterConditions, 'use IN for a list of values');
  }
  budget.patterns += nodes.filter((n) => n.kind === 'condition' && (n.op.kind === 'regex' || n.op.kind === 'like')).length;
  if (budget.patterns > LIMITS.patternConditions) {
    throw overLimit(
      `filter has more than ${LIMITS.patternConditions} pattern conditions (~ and ~~ operators)`,
      LIMITS.patternConditions,
      'join alternatives into one regular expression with |, or narrow the filter with indexed fields',
    );
  }
  return nodes;
}

function parseObject(o: Record<string, unknown>, depth: number, budget: Budget): FilterNode {
  const children: FilterNode[] = [];
  for (const [key, value] of Object.entries(o)) {
    if (/^\d+$/.test(key)) {
      const items = compositeItems(value);
      if (!items) throw badRequest(`filter key '${key}' must hold a composite ["AND" | "OR" | "NOT", condition…]`);
      children.push(parseComposite(items, depth + 1, budget));
    } else children.push(...fieldConditions(key, value, budget));
  }
  return children.length === 1 && children[0] ? children[0] : { kind: 'composite', join: 'AND', children };
}

function parseNode(v: unknown, depth: number, budget: Budget): FilterNode {
  const items = compositeItems(v);
  if (items) return parseComposite(items, depth + 1, budget);
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return parseObject(v as Record<string, unknown>, depth, budget);
  throw badRequest(`a filter condition must be an object of field conditions or a composite ["AND" | "OR" | "NOT", …], not ${excerptValue(v)}`);
}

/**
 * Parses a raw filter into a tree; undefined when it holds no condition. 400
 * for a malformed filter, one nesting composites deeper than LIMITS.filterDepth,
 * holding more than LIMITS.filterConditions conditions or more than
 * LIMITS.patternConditions `~` / `~~` conditions.
 */
export function parseFilter(raw: unknown): FilterNode | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0) return undefined;
  return parseNode(raw, 0, { conditions: 0, patterns: 0 });
}

/**
 * The compile pass: a syntax tree to the service's JSON filter. Paths are
 * checked against the catalogue, values converted for their fields, and the
 * result shaped as plain members where possible and AND/OR/NOT arrays under
 * numeric keys where needed. Nothing here throws for any input.
 */
import type { ResourceFamily } from '../catalogue/index.js';
import type { ComparisonNode, ConditionNode, ExprNode, MembershipNode } from './ast.js';
import { fail, ok, type FilterError, type Result } from './errors.js';
import { parseFilterText } from './parser.js';
import { resolvePath, type Target } from './paths.js';
import { toFilterObject, type Condition } from './shape.js';
import { convertPattern, convertValue, type ValueContext } from './values.js';

/** Options of a compilation: the current time (ms) for relative dates, and the zone of calendar dates. */
export interface CompileOptions {
  readonly now: number;
  /** IANA zone name for dates without an offset; default: the local zone. */
  readonly timeZone?: string;
}

/** A compiled filter, or the first problem found in the expression. */
export type CompileResult = { readonly ok: true; readonly filter: Record<string, unknown> } | { readonly ok: false; readonly error: FilterError };

/**
 * Compiles a filter expression for `family` into the service's JSON filter
 * (the value of the query member `filters`). Never throws: every problem,
 * syntax or meaning, comes back as a FilterError whose span lies within `text`.
 */
export function compileFilter(text: string, family: ResourceFamily, opts: CompileOptions): CompileResult {
  try {
    const tree = parseFilterText(text);
    if (!tree.ok) return tree;
    const ctx: ValueContext = { family: family.name, now: opts.now, timeZone: opts.timeZone };
    const lowered = lower(tree.value, family, ctx);
    if (!lowered.ok) return lowered;
    return { ok: true, filter: toFilterObject(lowered.value) };
  } catch (e) {
    // A bug must still not escape as an exception: report it against the whole text.
    return { ok: false, error: { message: `internal error compiling the filter: ${String(e)}`, start: 0, end: text.length } };
  }
}

function lower(node: ExprNode, family: ResourceFamily, ctx: ValueContext): Result<Condition> {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const items: Condition[] = [];
      for (const item of node.items) {
        const r = lower(item, family, ctx);
        if (!r.ok) return r;
        items.push(r.value);
      }
      return ok({ kind: node.kind, items });
    }
    case 'not': {
      const r = lower(node.operand, family, ctx);
      return r.ok ? ok({ kind: 'not', operand: r.value }) : r;
    }
    default:
      return lowerCondition(node, family, ctx);
  }
}

function lowerCondition(node: ConditionNode, family: ResourceFamily, ctx: ValueContext): Result<Condition> {
  const target = resolvePath(family, node.path);
  if (!target.ok) return target;
  if (node.kind === 'null-check') return ok({ kind: 'test', path: target.value.path, op: node.negated ? '!=' : '=', value: null });
  if (node.kind === 'membership') return lowerMembership(node, target.value, ctx);
  return lowerComparison(node, target.value, ctx);
}

function lowerComparison(node: ComparisonNode, target: Target, ctx: ValueContext): Result<Condition> {
  const { op } = node;
  const test = (value: unknown): Result<Condition> => ok({ kind: 'test', path: target.path, op: op.service, value });
  if (op.kind === 'regex' || op.kind === 'like') {
    if (target.field && target.field.type !== 'string') {
      const name = op.symbol ?? op.words[0] ?? op.service;
      return fail(`operator '${name}' applies to text fields, and ${target.path} on ${ctx.family} is ${target.field.type}`, node.opSpan.start, node.opSpan.end);
    }
    const pattern = convertPattern(node.value, op.kind === 'regex');
    return pattern.ok ? test(pattern.value) : pattern;
  }
  const value = convertValue(node.value, target, ctx);
  if (!value.ok) return value;
  if (value.value === null && op.service !== '=' && op.service !== '!=') {
    return fail(`null compares only with = and !=; use 'is null' or 'is not null'`, node.opSpan.start, node.value.end);
  }
  return test(value.value);
}

function lowerMembership(node: MembershipNode, target: Target, ctx: ValueContext): Result<Condition> {
  const values: unknown[] = [];
  for (const v of node.values) {
    const r = convertValue(v, target, ctx);
    if (!r.ok) return r;
    if (r.value === null) return fail(`a list cannot hold null (it never matches); add 'or ${target.path} is null'`, v.start, v.end);
    values.push(r.value);
  }
  return ok({ kind: 'test', path: target.path, op: node.op.service, value: values });
}

/**
 * The syntax tree of a filter expression: readonly, a discriminated union on
 * `kind`, every node with the span of the text it came from. Values stay as
 * typed; the compile pass gives them meaning from the field.
 */
import type { OperatorSpec } from './operators.js';

/** Where a node stands in the expression (end exclusive). */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A field path as typed: `lastname`, `contact.city`, `extdata.score`. */
export interface PathNode extends Span {
  readonly text: string;
}

/** A value as typed: a quoted text, or a bare word (number, name, date, null, true, …). */
export interface ValueNode extends Span {
  readonly quoted: boolean;
  readonly text: string;
}

/** `field OP value`, including word operators such as `like`. */
export interface ComparisonNode extends Span {
  readonly kind: 'comparison';
  readonly path: PathNode;
  readonly op: OperatorSpec;
  readonly opSpan: Span;
  readonly value: ValueNode;
}

/** `field in (…)` or `field not in (…)`. */
export interface MembershipNode extends Span {
  readonly kind: 'membership';
  readonly path: PathNode;
  readonly op: OperatorSpec;
  readonly values: readonly ValueNode[];
}

/** `field is null` or `field is not null`. */
export interface NullCheckNode extends Span {
  readonly kind: 'null-check';
  readonly path: PathNode;
  readonly negated: boolean;
}

/** `a and b and …` or `a or b or …` (flattened). */
export interface JunctionNode extends Span {
  readonly kind: 'and' | 'or';
  readonly items: readonly ExprNode[];
}

/** `not a`. */
export interface NotNode extends Span {
  readonly kind: 'not';
  readonly operand: ExprNode;
}

/** Any expression. */
export type ExprNode = ComparisonNode | MembershipNode | NullCheckNode | JunctionNode | NotNode;

/** The nodes that test one field. */
export type ConditionNode = ComparisonNode | MembershipNode | NullCheckNode;

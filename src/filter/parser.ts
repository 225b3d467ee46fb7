/**
 * The parser: tokens to a syntax tree by recursive descent, one method per
 * precedence level (or → and → not → comparison → primary), so `not` binds
 * tighter than `and`, and `and` tighter than `or`. Keywords are
 * case-insensitive. It never throws: every problem is a FilterError value.
 */
import { suggest } from '../util/suggest.js';
import type { ComparisonNode, ExprNode, MembershipNode, NullCheckNode, PathNode, ValueNode } from './ast.js';
import { clip, fail, ok, type Result } from './errors.js';
import { tokenize } from './lexer.js';
import { OPERATOR_WORDS, operatorBySymbol, operatorByWord, type OperatorSpec } from './operators.js';
import { describeToken, isKeyword, type Token } from './token.js';

/** Deeper nesting than this is refused rather than risking the stack. */
const MAX_DEPTH = 200;
const JUNCTIONS = ['and', 'or'];
const PATH = /^[\p{L}_][^]*$/u;

/** Parses a filter expression into its syntax tree, or the first error. */
export function parseFilterText(text: string): Result<ExprNode> {
  const tokens = tokenize(text);
  if (!tokens.ok) return tokens;
  return new Parser(tokens.value).parseFilter();
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parseFilter(): Result<ExprNode> {
    const first = this.peek();
    if (first.kind === 'end') return fail('the filter is empty; give a condition such as: lastname = Smith', first.start, first.end);
    const expr = this.parseOr();
    if (!expr.ok) return expr;
    const t = this.peek();
    if (t.kind === 'end') return expr;
    if (t.kind === 'rparen') return fail(`unbalanced ')': there is no '(' for it to close`, t.start, t.end);
    const hint = t.kind === 'word' ? suggest(t.text, JUNCTIONS)[0] : undefined;
    const mean = hint === undefined ? '' : `; did you mean '${hint}'?`;
    return fail(`expected 'and', 'or' or the end of the filter, found ${describeToken(t)}${mean}`, t.start, t.end);
  }

  private parseOr(): Result<ExprNode> {
    return this.parseJunction('or', () => this.parseAnd());
  }

  private parseAnd(): Result<ExprNode> {
    return this.parseJunction('and', () => this.parseNot());
  }

  private parseJunction(kind: 'and' | 'or', operand: () => Result<ExprNode>): Result<ExprNode> {
    const first = operand();
    if (!first.ok) return first;
    const items: ExprNode[] = [first.value];
    while (isKeyword(this.peek(), kind)) {
      this.next();
      const item = operand();
      if (!item.ok) return item;
      items.push(item.value);
    }
    const [only] = items;
    if (items.length === 1 && only) return ok(only);
    return ok({ kind, items, start: first.value.start, end: this.last().end });
  }

  private parseNot(): Result<ExprNode> {
    const t = this.peek();
    if (!isKeyword(t, 'not')) return this.parseComparison();
    this.next();
    const operand = this.nested(t, () => this.parseNot());
    if (!operand.ok) return operand;
    return ok({ kind: 'not', operand: operand.value, start: t.start, end: operand.value.end });
  }

  /** A parenthesised expression, or a condition on one field. */
  private parseComparison(): Result<ExprNode> {
    const open = this.peek();
    if (open.kind !== 'lparen') return this.parseCondition();
    this.next();
    const inner = this.nested(open, () => this.parseOr());
    if (!inner.ok) return inner;
    const close = this.peek();
    if (close.kind === 'rparen') {
      this.next();
      return inner;
    }
    if (close.kind === 'end') return fail(`unbalanced '(': add the ')' that closes it`, open.start, open.end);
    return fail(`expected ')', 'and' or 'or', found ${describeToken(close)}`, close.start, close.end);
  }

  private parseCondition(): Result<ExprNode> {
    const path = this.parsePath();
    if (!path.ok) return path;
    const t = this.peek();
    if (t.kind === 'operator') {
      const op = operatorBySymbol(t.text);
      this.next();
      if (op) return this.comparison(path.value, op, t.text, t);
    }
    if (t.kind === 'word') return this.wordPredicate(path.value);
    return fail(`expected an operator after '${clip(path.value.text)}', found ${describeToken(t)}`, t.start, t.end);
  }

  /** `is [not] null`, `[not] in (…)`, `[not] like …` and the other word operators. */
  private wordPredicate(path: PathNode): Result<ExprNode> {
    const first = this.next();
    if (isKeyword(first, 'is')) return this.nullCheck(path);
    const negated = isKeyword(first, 'not');
    const word = negated ? this.next() : first;
    const op = word.kind === 'word' ? operatorByWord(word.text, negated) : undefined;
    if (op?.kind === 'set') return this.membership(path, op);
    if (op) return this.comparison(path, op, `${negated ? 'not ' : ''}${word.text.toLowerCase()}`, first, word.end);
    const hint = word.kind === 'word' ? suggest(word.text, [...OPERATOR_WORDS, 'is']) : [];
    const mean = hint[0] === undefined ? '' : `; did you mean '${hint[0]}'?`;
    return fail(`expected an operator after '${clip(path.text)}', found ${describeToken(word)}${mean}`, word.start, word.end);
  }

  private nullCheck(path: PathNode): Result<NullCheckNode> {
    const negated = isKeyword(this.peek(), 'not');
    if (negated) this.next();
    const t = this.next();
    if (!isKeyword(t, 'null')) return fail(`expected 'null' after 'is${negated ? ' not' : ''}', found ${describeToken(t)}`, t.start, t.end);
    return ok({ kind: 'null-check', path, negated, start: path.start, end: t.end });
  }

  private comparison(path: PathNode, op: OperatorSpec, typed: string, opToken: Token, opEnd = opToken.end): Result<ComparisonNode> {
    const value = this.parsePrimary(typed, opToken.start, opEnd);
    if (!value.ok) return value;
    const opSpan = { start: opToken.start, end: opEnd };
    return ok({ kind: 'comparison', path, op, opSpan, value: value.value, start: path.start, end: value.value.end });
  }

  private membership(path: PathNode, op: OperatorSpec): Result<MembershipNode> {
    const open = this.next();
    if (open.kind !== 'lparen') return fail(`expected '(' to start the list of '${op.words[0] ?? op.service}', found ${describeToken(open)}`, open.start, open.end);
    const values: ValueNode[] = [];
    for (;;) {
      if (this.peek().kind === 'rparen' && values.length === 0) return fail('the list is empty; give at least one value', open.start, this.peek().end);
      const value = this.parsePrimary(values.length === 0 ? '(' : ',', open.start, open.end);
      if (!value.ok) return value;
      values.push(value.value);
      const t = this.next();
      if (t.kind === 'rparen') return ok({ kind: 'membership', path, op, values, start: path.start, end: t.end });
      if (t.kind === 'end') return fail(`unbalanced '(': add the ')' that closes the list`, open.start, open.end);
      if (t.kind !== 'comma') return fail(`expected ',' or ')' in the list, found ${describeToken(t)}`, t.start, t.end);
    }
  }

  /** A field path: a bare word starting with a letter or underscore, other than 'and' and 'or'. */
  private parsePath(): Result<PathNode> {
    const t = this.peek();
    const junction = JUNCTIONS.find((k) => isKeyword(t, k));
    if (junction !== undefined) {
      // A doubled or leading 'and'/'or' ("a and and b", "or a"): say a condition is missing, rather than taking the
      // keyword for a field name and the field after it for a misspelt operator.
      const found = describeToken(t);
      if (this.pos === 0) return fail(`expected a condition, found ${found}; start the filter with a condition such as lastname = Smith`, t.start, t.end);
      return fail(`expected a condition after ${describeToken(this.last())}, found ${found}; remove it or add the missing condition`, t.start, t.end);
    }
    if (t.kind === 'word' && PATH.test(t.text)) {
      this.next();
      return ok({ text: t.text, start: t.start, end: t.end });
    }
    const after = this.pos > 0 ? ` after ${describeToken(this.last())}` : '';
    return fail(`expected a field name${after}, found ${describeToken(t)}`, t.start, t.end);
  }

  /** A value: a quoted text or a bare word. `and`, `or` and `not` must be quoted to be values. */
  private parsePrimary(after: string, afterStart: number, afterEnd: number): Result<ValueNode> {
    const t = this.peek();
    if (t.kind === 'string' || (t.kind === 'word' && !['and', 'or', 'not'].some((k) => isKeyword(t, k)))) {
      this.next();
      return ok({ quoted: t.kind === 'string', text: t.text, start: t.start, end: t.end });
    }
    const hint = t.kind === 'word' ? `; quote '${t.text}' to use it as a text` : '';
    const end = t.kind === 'end' ? Math.max(t.end, afterEnd) : t.end;
    const start = t.kind === 'end' ? afterStart : t.start;
    return fail(`expected a value after '${after}', found ${describeToken(t)}${hint}`, start, end);
  }

  /** Runs a nested level, refusing nesting deeper than MAX_DEPTH. */
  private nested<T>(at: Token, parse: () => Result<T>): Result<T> {
    if (this.depth >= MAX_DEPTH) return fail(`the filter nests deeper than ${MAX_DEPTH} levels`, at.start, at.end);
    this.depth++;
    const result = parse();
    this.depth--;
    return result;
  }

  private peek(): Token {
    return this.tokens[this.pos] ?? this.endToken();
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'end') this.pos++;
    return t;
  }

  private last(): Token {
    return this.tokens[this.pos - 1] ?? this.endToken();
  }

  private endToken(): Token {
    const n = this.tokens[this.tokens.length - 1]?.end ?? 0;
    return { kind: 'end', text: '', start: n, end: n };
  }
}

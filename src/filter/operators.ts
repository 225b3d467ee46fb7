/**
 * The operators of the filter language as data: the lexer reads the symbols,
 * the parser the words, the compiler the service operator, and `svc help
 * filters` renders the table from the same entries.
 */

/** What kind of value an operator compares. */
export type OperatorKind = 'compare' | 'regex' | 'like' | 'set';

/** One operator of the filter language. */
export interface OperatorSpec {
  /** The symbol typed in an expression, or undefined for word-only operators. */
  readonly symbol?: string;
  /** Readable spellings (lower case, possibly two words such as `not like`). */
  readonly words: readonly string[];
  /** The operator sent to the service. */
  readonly service: string;
  readonly kind: OperatorKind;
  /** One line for the help page. */
  readonly meaning: string;
}

const spec = (symbol: string | undefined, words: readonly string[], service: string, kind: OperatorKind, meaning: string): OperatorSpec =>
  symbol === undefined ? { words, service, kind, meaning } : { symbol, words, service, kind, meaning };

/** Every operator, in the order the help page lists them. */
export const OPERATORS: readonly OperatorSpec[] = [
  spec('=', [], '=', 'compare', 'equal'),
  spec('!=', [], '!=', 'compare', 'not equal (never true for a null value)'),
  spec('<>', [], '!=', 'compare', 'not equal, like !='),
  spec('<', [], '<', 'compare', 'less than'),
  spec('<=', [], '<=', 'compare', 'less than or equal'),
  spec('>', [], '>', 'compare', 'greater than'),
  spec('>=', [], '>=', 'compare', 'greater than or equal'),
  spec('~', ['matches'], '~', 'regex', 'matches a regular expression, case-sensitive'),
  spec('~*', ['imatches'], '~*', 'regex', 'matches a regular expression, ignoring case'),
  spec('!~', ['not matches'], '!~', 'regex', 'does not match a regular expression, case-sensitive'),
  spec('!~*', ['not imatches'], '!~*', 'regex', 'does not match a regular expression, ignoring case'),
  spec('~~', ['like'], '~~', 'like', 'like pattern (% any text, _ one character), case-sensitive'),
  spec('~~*', ['ilike'], '~~*', 'like', 'like pattern, ignoring case'),
  spec('!~~', ['not like'], '!~~', 'like', 'not like pattern, case-sensitive'),
  spec('!~~*', ['not ilike'], '!~~*', 'like', 'not like pattern, ignoring case'),
  spec(undefined, ['in'], 'IN', 'set', 'one of a list: field in (a, b, c)'),
  spec(undefined, ['not in'], '!IN', 'set', 'none of a list: field not in (a, b, c)'),
];

/** Operator symbols, longest first, so the lexer can match greedily. */
export const OPERATOR_SYMBOLS: readonly string[] = OPERATORS.flatMap((o) => (o.symbol === undefined ? [] : [o.symbol])).sort(
  (a, b) => b.length - a.length,
);

/** The characters operator symbols are made of. */
export const OPERATOR_CHARS: ReadonlySet<string> = new Set(OPERATOR_SYMBOLS.join(''));

/** The operator typed as this symbol, or undefined. */
export function operatorBySymbol(symbol: string): OperatorSpec | undefined {
  return OPERATORS.find((o) => o.symbol === symbol);
}

/** The operator spelt with this word (or `not` + word), or undefined. */
export function operatorByWord(word: string, negated: boolean): OperatorSpec | undefined {
  const spelling = `${negated ? 'not ' : ''}${word.toLowerCase()}`;
  return OPERATORS.find((o) => o.words.includes(spelling));
}

/** Single words that start a word operator (`like`, `in`, …), for the parser and its suggestions. */
export const OPERATOR_WORDS: readonly string[] = [...new Set(OPERATORS.flatMap((o) => o.words.map((w) => w.replace(/^not /, ''))))];

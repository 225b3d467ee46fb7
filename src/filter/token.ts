/**
 * Tokens of the filter language. Every token carries the offsets of its text
 * in the expression (`start` inclusive, `end` exclusive, UTF-16 units), so any
 * later error can point at it.
 */
import { clip } from './errors.js';

/**
 * - `word`: a bare run of letters, digits and `_ . : + - % @ /` — a field
 *   path, a keyword (and, or, not, in, is, null, like, …), a number, an enum
 *   name or a date, decided by the parser and compiler;
 * - `string`: a quoted text, escapes resolved;
 * - `operator`: an operator symbol from the operator table;
 * - `lparen`, `rparen`, `comma`; `end` closes every token list.
 */
export type TokenKind = 'word' | 'string' | 'operator' | 'lparen' | 'rparen' | 'comma' | 'end';

/** One token: its kind, its value (a string's text without quotes) and where it stands. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Whether a token is the keyword `word` (case-insensitive). */
export function isKeyword(token: Token, word: string): boolean {
  return token.kind === 'word' && token.text.toLowerCase() === word;
}

/** The token as shown in a message: quoted text, or "the end of the filter". */
export function describeToken(token: Token): string {
  if (token.kind === 'end') return 'the end of the filter';
  if (token.kind === 'string') return `the text ${JSON.stringify(clip(token.text))}`;
  return `'${clip(token.text)}'`;
}

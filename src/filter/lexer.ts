/**
 * The lexer: expression text to tokens with offsets. It never throws; an
 * unterminated string or a character that starts no token is an error value.
 */
import { ACTING } from '../util/shown.js';
import { clip, fail, ok, type Result } from './errors.js';
import { OPERATOR_CHARS, OPERATOR_SYMBOLS, OPERATORS } from './operators.js';
import type { Token, TokenKind } from './token.js';

const WORD_CHAR = /[\p{L}\p{N}\p{M}_.:+\-%@/]/u;
const SPACE = /\s/u;
/** Characters named by code rather than shown: those that act on a terminal, formats (Cf) and unassigned or private ones. */
const INVISIBLE = new RegExp(`${ACTING.source}|[\\p{Cf}\\p{Co}\\p{Cn}\\p{Cs}]`, 'u');
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };
const PUNCTUATION: Readonly<Record<string, TokenKind>> = { '(': 'lparen', ')': 'rparen', ',': 'comma' };

/** Splits an expression into tokens ending with an `end` token, or the first lexical error. */
export function tokenize(text: string): Result<readonly Token[]> {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    const kind = PUNCTUATION[c];
    const step = kind ? ok<Token>({ kind, text: c, start: i, end: i + 1 }) : scanToken(text, i);
    if (!step.ok) return step;
    tokens.push(step.value);
    i = step.value.end;
  }
  tokens.push({ kind: 'end', text: '', start: text.length, end: text.length });
  return ok(tokens);
}

function scanToken(text: string, start: number): Result<Token> {
  const c = text.charAt(start);
  if (c === '"' || c === "'") return scanString(text, start);
  if (OPERATOR_CHARS.has(c)) return scanOperator(text, start);
  if (WORD_CHAR.test(c)) {
    let end = start;
    while (end < text.length && WORD_CHAR.test(text.charAt(end))) end++;
    return ok({ kind: 'word', text: text.slice(start, end), start, end });
  }
  const code = text.codePointAt(start) ?? 0;
  const width = code > 0xffff ? 2 : 1;
  return fail(`unexpected character ${nameOf(code)} in the filter; quote texts that hold it`, start, start + width);
}

/** A character as a message names it: quoted, or as U+XXXX when it would act on a terminal or not show. */
function nameOf(code: number): string {
  const ch = String.fromCodePoint(code);
  return INVISIBLE.test(ch) ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `'${ch}'`;
}

function scanOperator(text: string, start: number): Result<Token> {
  let end = start;
  while (end < text.length && OPERATOR_CHARS.has(text.charAt(end))) end++;
  const run = text.slice(start, end);
  if (!OPERATOR_SYMBOLS.includes(run)) {
    const known = OPERATORS.flatMap((o) => (o.symbol === undefined ? [] : [o.symbol]));
    return fail(`unknown operator '${clip(run)}'; use one of ${known.join(' ')}`, start, end);
  }
  return ok({ kind: 'operator', text: run, start, end });
}

/**
 * A quoted text. Backslash escapes \n \t \r \\ \' \" are resolved; any other
 * backslash is kept as typed, so regular expressions such as "\d+" need no doubling.
 */
function scanString(text: string, start: number): Result<Token> {
  const quote = text.charAt(start);
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === quote) return ok({ kind: 'string', text: value, start, end: i + 1 });
    if (c === '\\' && i + 1 < text.length) {
      const next = text.charAt(i + 1);
      value += ESCAPES[next] ?? `\\${next}`;
      i += 2;
      continue;
    }
    value += c;
    i++;
  }
  return fail(`unterminated text: add the closing ${quote}`, start, text.length);
}

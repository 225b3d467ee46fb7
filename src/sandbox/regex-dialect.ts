/**
 * PostgreSQL's regular expressions (AREs, as `~` takes them) rewritten in
 * RE2's syntax, so the linear-time engine answers what PostgreSQL would. The
 * pattern is read by src/util/pg-regex.ts (PostgreSQL's syntax, the reader
 * svc's own check uses too): what PostgreSQL refuses is `invalid`, in its
 * words. Its tokens are rewritten here:
 *
 * - `.` and `[^…]` match a line break, and `^` / `$` anchor the whole text
 *   (PostgreSQL's default); the embedded options at the start and the
 *   directors `***=` and `***:` change that as PostgreSQL's do (with `(?n)`
 *   only `.` and `[^…]` stop at a line break, not `\D` or `\W`);
 * - `\y` `\Y` (word boundary, not), `\m` `\M` and `[[:<:]]` `[[:>:]]`
 *   (start, end of a word; read as a boundary), `\A`, `\Z` (end of the text);
 *   character escapes (`\B` a backslash, `\b` a backspace, `\cX`, `\10`, …)
 *   and collating elements (`[[.space.]]`) are the characters they name;
 * - `[[:alpha:]]` `[[:upper:]]` `[[:lower:]]` `[[:alnum:]]` `[[:word:]]` and
 *   `\w` `\W` are Unicode properties, as a UTF-8 database reads them (other
 *   classes, `\d`, `\s` and `\W` inside a bracket stay ASCII);
 * - case-insensitive matching folds each literal letter as JavaScript's `iu`
 *   does (what `~~*` uses), adding the case partners RE2's older tables lack
 *   (Unicode 16 letters such as Ᲊ/ᲊ).
 *
 * Backreferences, lookahead and lookbehind are `unsupported` (only a
 * backtracking engine runs them); `(?b)` and `(?e)` (basic and extended POSIX
 * syntax) and character codes that are no Unicode character too.
 * Word boundaries are RE2's, which see ASCII letters, digits and `_` only;
 * `\m` and `\M` match at either edge of a word.
 */
import { createRequire } from 'node:module';
import type RE2Type from 're2';
import { type PgClassEscape, type PgToken, readPgRegex } from '../util/pg-regex.js';

/** RE2's source and flags for a pattern, or why there are none. */
export type Dialect =
  | { readonly ok: true; readonly source: string; readonly flags: string }
  | { readonly ok: false; readonly reason: 'invalid' | 'unsupported'; readonly detail: string };

interface Mode {
  ignoreCase: boolean;
  /** `.` and `[^…]` stop at a line break (options n, m, p). */
  lineStop: boolean;
  /** `^` and `$` also match at line breaks (options n, m, w). */
  lineAnchors: boolean;
}

const SPECIAL = /[\\^$.|?*+()[\]{}]/;

let engine: typeof RE2Type | undefined;

/** The RE2 class (a native addon), loaded on first use so start-up does not pay for it. */
export function loadRe2(): typeof RE2Type {
  engine ??= createRequire(import.meta.url)('re2') as typeof RE2Type;
  return engine;
}

/** Case partners JavaScript's `iu` matches and RE2's `iu` does not, by character (cached). */
const partners = new Map<string, string>();

function extraPartners(ch: string): string {
  let got = partners.get(ch);
  if (got !== undefined) return got;
  got = '';
  const lower = ch.toLowerCase();
  const upper = ch.toUpperCase();
  const candidates = new Set([lower, upper, lower.toUpperCase(), upper.toLowerCase()]);
  const quoted = SPECIAL.test(ch) ? `\\${ch}` : ch;
  for (const v of candidates) {
    if (v === ch || [...v].length !== 1) continue;
    if (new RegExp(quoted, 'iu').test(v) && !new (loadRe2())(quoted, 'iu').test(v)) got += v;
  }
  if (partners.size >= 10_000) partners.clear();
  partners.set(ch, got);
  return got;
}

/** One literal character in RE2's syntax, outside a bracket expression. */
function literal(ch: string, mode: Mode): string {
  const extra = mode.ignoreCase && ch.charCodeAt(0) > 0x7f ? extraPartners(ch) : '';
  if (extra !== '') return `[${ch}${extra}]`;
  if (SPECIAL.test(ch)) return `\\${ch}`;
  return ch.charCodeAt(0) < 0x20 ? `\\x{${ch.charCodeAt(0).toString(16)}}` : ch;
}

/** One literal character inside a bracket expression. */
function member(ch: string, mode: Mode, inRange: boolean): string {
  const quoted = /[\\\]\[^-]/.test(ch) ? `\\${ch}` : ch.charCodeAt(0) < 0x20 ? `\\x{${ch.charCodeAt(0).toString(16)}}` : ch;
  return mode.ignoreCase && !inRange && ch.charCodeAt(0) > 0x7f ? quoted + extraPartners(ch) : quoted;
}

const hex = (n: number): string => `\\x{${n.toString(16)}}`;

/** RE2's form of PostgreSQL's POSIX classes inside a bracket: the letter classes by Unicode property (PostgreSQL's UTF-8 reading). */
const POSIX: Readonly<Record<string, string>> = {
  alpha: '\\p{L}',
  upper: '\\p{Lu}',
  lower: '\\p{Ll}',
  alnum: '\\p{L}\\p{Nd}',
  word: '\\p{L}\\p{Nd}_',
};
const WORD = '\\p{L}\\p{Nd}_';

function classEscape(name: PgClassEscape, inBracket: boolean): string {
  if (name === 'w') return inBracket ? WORD : `[${WORD}]`;
  if (name === 'W' && !inBracket) return `[^${WORD}]`;
  return `\\${name}`;
}

function char(code: number): string {
  return String.fromCodePoint(code);
}

function bracket(t: PgToken & { k: 'bracket' }, mode: Mode): string {
  let out = '';
  for (const m of t.members) {
    if (m.k === 'char') out += member(char(m.code), mode, false);
    else if (m.k === 'range') out += `${member(char(m.from), mode, true)}-${member(char(m.to), mode, true)}`;
    else if (m.k === 'posix') out += POSIX[m.name] ?? `[:${m.name}:]`;
    else out += classEscape(m.name, true);
  }
  return `[${t.negated ? '^' : ''}${out}${t.negated && mode.lineStop ? '\\n' : ''}]`;
}

const ANCHORS: Readonly<Record<string, string>> = { '^': '^', $: '$', A: '\\A', Z: '\\z', y: '\\b', Y: '\\B', m: '\\b', M: '\\b' };

function translate(tokens: readonly PgToken[], mode: Mode): string {
  let out = '';
  for (const t of tokens) {
    switch (t.k) {
      case 'char':
        out += literal(char(t.code), mode);
        break;
      case 'any':
        out += '.';
        break;
      case 'esc':
        out += classEscape(t.name, false);
        break;
      case 'bracket':
        out += bracket(t, mode);
        break;
      case 'anchor':
        out += ANCHORS[t.name];
        break;
      case 'open':
        out += t.capture ? '(' : '(?:';
        break;
      case 'close':
        out += ')';
        break;
      case 'alt':
        out += '|';
        break;
      case 'quant': {
        const q = t.max === undefined ? (t.min === 0 ? '*' : t.min === 1 ? '+' : `{${t.min},}`) : t.min === 0 && t.max === 1 ? '?' : t.min === t.max ? `{${t.min}}` : `{${t.min},${t.max}}`;
        out += q + (t.lazy ? '?' : '');
        break;
      }
    }
  }
  return out;
}

/**
 * Rewrites a PostgreSQL regular expression for RE2; `ignoreCase` is the
 * operator's (`~*`), which the options `(?c)` and `(?i)` override. Never throws.
 */
export function toRe2(pattern: string, ignoreCase: boolean): Dialect {
  const read = readPgRegex(pattern);
  if (!read.ok) return { ok: false, reason: 'invalid', detail: read.detail };
  if (read.unsupported !== undefined) return { ok: false, reason: 'unsupported', detail: read.unsupported };
  const mode: Mode = { ignoreCase: read.ignoreCase ?? ignoreCase, lineStop: read.lineStop, lineAnchors: read.lineAnchors };
  const source = translate(read.tokens, mode);
  const flags = `u${mode.ignoreCase ? 'i' : ''}${mode.lineStop ? '' : 's'}${mode.lineAnchors ? 'm' : ''}`;
  return { ok: true, source, flags };
}

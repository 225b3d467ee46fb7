/**
 * PostgreSQL's regular expressions (AREs, as `~` takes them) rewritten in
 * RE2's syntax, so the linear-time engine answers what PostgreSQL would:
 *
 * - `.` and `[^…]` match a line break, and `^` / `$` anchor the whole text
 *   (PostgreSQL's default); the embedded options at the start, `(?i)` `(?c)`
 *   `(?n)` `(?m)` `(?p)` `(?w)` `(?s)` `(?x)` `(?q)` `(?t)`, and the
 *   directors `***=` (the rest is literal) and `***:`, change that as
 *   PostgreSQL's do; `(?` with a letter anywhere else is invalid, as there;
 * - the escapes PostgreSQL reads its own way: `\y` `\Y` (word boundary, not),
 *   `\m` `\M` and `[[:<:]]` `[[:>:]]` (start, end of a word; read as a
 *   boundary), `\Z` (end of the text), `\B` (a backslash), `\b` (backspace),
 *   `\e`, `\cX`, `\uXXXX`, `\UXXXXXXXX`, `\xH…` and `\0`;
 * - case-insensitive matching folds each literal letter as JavaScript's `iu`
 *   does (what `~~*` uses), adding the case partners RE2's older tables lack
 *   (Unicode 16 letters such as Ᲊ/ᲊ).
 *
 * Backreferences, lookahead and lookbehind are `unsupported` (only a
 * backtracking engine runs them); named groups, `(?b)` and `(?e)` (basic
 * and extended POSIX syntax) and multi-character collating elements too.
 * Word boundaries are RE2's, which see ASCII letters, digits and `_` only;
 * `\m` and `\M` match at either edge of a word.
 */
import { createRequire } from 'node:module';
import type RE2Type from 're2';

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
  /** White space and #-comments are left out (option x). */
  expanded: boolean;
  /** The rest is a literal text (option q, director ***=). */
  literal: boolean;
}

class Refused extends Error {
  constructor(
    readonly reason: 'invalid' | 'unsupported',
    detail: string,
  ) {
    super(detail);
  }
}

const SPECIAL = /[\\^$.|?*+()[\]{}]/;
const HEX = /^[0-9a-fA-F]+$/;
const SPACE = /[ \t\n\r\f\v]/;

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

const code = (n: number): string => {
  if (!Number.isInteger(n) || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) throw new Refused('invalid', `invalid character code ${n.toString(16)}`);
  return String.fromCodePoint(n);
};

/**
 * A character-entry escape at `chars[i]` (the letter after the backslash):
 * the character it stands for and the index after it, or undefined when the
 * escape is not one.
 */
function entryEscape(chars: readonly string[], i: number): [string, number] | undefined {
  const c = chars[i];
  const hexRun = (from: number, max: number): string => {
    let s = '';
    for (let k = from; k < chars.length && s.length < max && /[0-9a-fA-F]/.test(chars[k] as string); k++) s += chars[k];
    return s;
  };
  switch (c) {
    case 'b':
      return ['\b', i + 1];
    case 'e':
      return ['\x1b', i + 1];
    case 'B':
      return ['\\', i + 1];
    case 'c': {
      const x = chars[i + 1];
      if (x === undefined) throw new Refused('invalid', 'a \\c escape needs a character after it');
      return [String.fromCharCode((x.codePointAt(0) ?? 0) & 0x1f), i + 2];
    }
    case 'u':
    case 'U': {
      const want = c === 'u' ? 4 : 8;
      const h = hexRun(i + 1, want);
      if (h.length !== want) throw new Refused('invalid', `\\${c} needs ${want} hexadecimal digits`);
      return [code(parseInt(h, 16)), i + 1 + want];
    }
    case 'x': {
      const h = hexRun(i + 1, 8);
      if (!HEX.test(h)) throw new Refused('invalid', '\\x needs hexadecimal digits');
      return [code(parseInt(h, 16)), i + 1 + h.length];
    }
    case '0': {
      let s = '';
      for (let k = i + 1; k < chars.length && s.length < 2 && /[0-7]/.test(chars[k] as string); k++) s += chars[k];
      return [String.fromCharCode(parseInt(`0${s}`, 8)), i + 1 + s.length];
    }
    default:
      return undefined;
  }
}

/** The embedded options and directors at the start; returns where the expression proper begins. */
function prefix(chars: readonly string[], mode: Mode): number {
  let i = 0;
  if (chars[0] === '*' && chars[1] === '*' && chars[2] === '*') {
    if (chars[3] === '=') {
      mode.literal = true;
      return 4;
    }
    if (chars[3] !== ':') throw new Refused('invalid', "'***' at the start must be followed by ':' or '='");
    i = 4;
  }
  if (chars[i] !== '(' || chars[i + 1] !== '?' || !/[a-zA-Z]/.test(chars[i + 2] ?? '')) return i;
  for (i += 2; i < chars.length && /[a-zA-Z]/.test(chars[i] as string); i++) {
    const o = chars[i] as string;
    if (o === 'b' || o === 'e') throw new Refused('unsupported', `embedded option (?${o}) (basic or extended POSIX syntax)`);
    else if (o === 'c') mode.ignoreCase = false;
    else if (o === 'i') mode.ignoreCase = true;
    else if (o === 'm' || o === 'n') [mode.lineStop, mode.lineAnchors] = [true, true];
    else if (o === 'p') [mode.lineStop, mode.lineAnchors] = [true, false];
    else if (o === 'w') [mode.lineStop, mode.lineAnchors] = [false, true];
    else if (o === 's') [mode.lineStop, mode.lineAnchors] = [false, false];
    else if (o === 'q') mode.literal = true;
    else if (o === 't') mode.expanded = false;
    else if (o === 'x') mode.expanded = true;
    else throw new Refused('invalid', `invalid embedded option '${o}'`);
  }
  if (chars[i] !== ')') throw new Refused('invalid', 'embedded options must end with )');
  if (mode.literal) [mode.expanded, mode.lineStop, mode.lineAnchors] = [false, false, false];
  return i + 1;
}

/** A bracket expression starting at `chars[i]` (`[`): its RE2 form and the index after it. */
function bracket(chars: readonly string[], i: number, mode: Mode): [string, number] {
  const rest = chars.slice(i, i + 7).join('');
  if (rest === '[[:<:]]' || rest === '[[:>:]]') return ['\\b', i + 7];
  let k = i + 1;
  let out = '[';
  const negated = chars[k] === '^';
  if (negated) (out += '^'), k++;
  if (chars[k] === ']') (out += '\\]'), k++;
  for (; k < chars.length && chars[k] !== ']'; ) {
    const c = chars[k] as string;
    const next = chars[k + 1];
    if (c === '[' && (next === ':' || next === '.' || next === '=')) {
      let end = k + 2;
      while (end + 1 < chars.length && !(chars[end] === next && chars[end + 1] === ']')) end++;
      if (end + 1 >= chars.length) throw new Refused('invalid', `unterminated [${next} in a bracket expression`);
      const inner = chars.slice(k + 2, end).join('');
      if (next === ':') out += `[:${inner}:]`;
      else if ([...inner].length === 1) out += member(inner, mode, false);
      else throw new Refused('unsupported', `collating element or equivalence class [${next}${inner}${next}]`);
      k = end + 2;
      continue;
    }
    const inRange = next === '-' || chars[k - 1] === '-';
    if (c === '\\') {
      const e = entryEscape(chars, k + 1);
      if (e) {
        out += member(e[0], mode, inRange);
        k = e[1];
      } else {
        if (next === undefined) throw new Refused('invalid', 'a trailing backslash');
        out += `\\${next}`;
        k += 2;
      }
      continue;
    }
    out += c === '-' ? '-' : member(c, mode, inRange);
    k++;
  }
  if (k >= chars.length) throw new Refused('invalid', 'a bracket expression without its closing ]');
  return [`${out}${negated && mode.lineStop ? '\\n' : ''}]`, k + 1];
}

/** An escape outside brackets at `chars[i]` (the backslash): its RE2 form and the index after it. */
function escape(chars: readonly string[], i: number, mode: Mode): [string, number] {
  const c = chars[i + 1];
  if (c === undefined) throw new Refused('invalid', 'a trailing backslash');
  const e = entryEscape(chars, i + 1);
  if (e) return [literal(e[0], mode), e[1]];
  if (/[1-9k]/.test(c)) throw new Refused('unsupported', `a backreference (\\${c})`);
  const map: Readonly<Record<string, string>> = { Z: '\\z', y: '\\b', Y: '\\B', m: '\\b', M: '\\b' };
  const mapped = map[c];
  if (mapped) return [mapped, i + 2];
  if (mode.lineStop && (c === 'D' || c === 'W')) return [`[^\\${c.toLowerCase()}\\n]`, i + 2];
  return [`\\${c}`, i + 2];
}

function body(chars: readonly string[], start: number, mode: Mode): string {
  let out = '';
  for (let i = start; i < chars.length; ) {
    const c = chars[i] as string;
    if (mode.literal) {
      out += literal(c, mode);
      i++;
    } else if (mode.expanded && SPACE.test(c)) i++;
    else if (mode.expanded && c === '#') {
      while (i < chars.length && chars[i] !== '\n') i++;
    } else if (c === '\\') {
      const [s, next] = escape(chars, i, mode);
      out += s;
      i = next;
    } else if (c === '[') {
      const [s, next] = bracket(chars, i, mode);
      out += s;
      i = next;
    } else if (c === '(' && chars[i + 1] === '?') {
      const after = chars[i + 2];
      if (after === ':') out += '(?:';
      else if (after === '=' || after === '!' || (after === '<' && (chars[i + 3] === '=' || chars[i + 3] === '!'))) {
        throw new Refused('unsupported', after === '<' ? 'lookbehind' : 'lookahead');
      } else if (after === '<' || after === 'P') throw new Refused('unsupported', 'a named group');
      else throw new Refused('invalid', 'embedded options such as (?i) may only start the expression');
      i += 3;
    } else {
      out += SPECIAL.test(c) ? c : literal(c, mode);
      i++;
    }
  }
  return out;
}

/**
 * Rewrites a PostgreSQL regular expression for RE2; `ignoreCase` is the
 * operator's (`~*`), which the options `(?c)` and `(?i)` override. Never throws.
 */
export function toRe2(pattern: string, ignoreCase: boolean): Dialect {
  const mode: Mode = { ignoreCase, lineStop: false, lineAnchors: false, expanded: false, literal: false };
  try {
    const chars = [...pattern];
    const source = body(chars, prefix(chars, mode), mode);
    const flags = `u${mode.ignoreCase ? 'i' : ''}${mode.lineStop ? '' : 's'}${mode.lineAnchors ? 'm' : ''}`;
    return { ok: true, source, flags };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.reason, detail: err.message };
    throw err;
  }
}

/**
 * A reader of PostgreSQL's regular expressions (AREs, as `~` takes them, PostgreSQL 15): the
 * directors `***=` and `***:`, embedded options at the start, `(?#…)` comments, groups and
 * lookaround, quantifiers and bounds (digits only, at most 255), bracket expressions (POSIX
 * classes, `[.x.]` collating elements by name, `[=x=]`, ranges), and escapes as PostgreSQL's tables
 * give them (character entries, classes, constraints, backreferences and octal codes). It tells
 * what PostgreSQL refuses, in PostgreSQL's words plus what was refused, and yields tokens.
 *
 * One reader for both sides: svc's check before sending (src/filter/regex.ts) and the sandbox's
 * rewriting for RE2 (src/sandbox/regex-dialect.ts), so what one refuses the other refuses too.
 * It lives in the base (src/util) because the sandbox may import nothing else of the client.
 */

export type PgClassEscape = 'd' | 's' | 'w' | 'D' | 'S' | 'W';

/** A member of a bracket expression. */
export type PgMember =
  | { readonly k: 'char'; readonly code: number }
  | { readonly k: 'range'; readonly from: number; readonly to: number }
  | { readonly k: 'posix'; readonly name: string }
  | { readonly k: 'esc'; readonly name: PgClassEscape };

export type PgToken =
  | { readonly k: 'char'; readonly code: number }
  | { readonly k: 'any' }
  | { readonly k: 'esc'; readonly name: PgClassEscape }
  | { readonly k: 'bracket'; readonly negated: boolean; readonly members: readonly PgMember[] }
  /** `^ $` and the constraint escapes `\A \Z \y \Y \m \M` (`[[:<:]]` is `m`, `[[:>:]]` is `M`). */
  | { readonly k: 'anchor'; readonly name: '^' | '$' | 'A' | 'Z' | 'y' | 'Y' | 'm' | 'M' }
  | { readonly k: 'open'; readonly capture: boolean }
  | { readonly k: 'close' }
  | { readonly k: 'alt' }
  | { readonly k: 'quant'; readonly min: number; readonly max: number | undefined; readonly lazy: boolean };

export type PgRegex =
  | {
      readonly ok: true;
      readonly tokens: readonly PgToken[];
      /** Set by the embedded options (?i) / (?c); undefined leaves the operator's choice. */
      readonly ignoreCase: boolean | undefined;
      /** `.` and `[^…]` stop at a line break (options n, m, p). */
      readonly lineStop: boolean;
      /** `^` and `$` also match at line breaks (options n, m, w). */
      readonly lineAnchors: boolean;
      /** What PostgreSQL runs that only a backtracking engine (or POSIX syntax) can: backreferences, lookaround, (?b), (?e). */
      readonly unsupported: string | undefined;
    }
  | { readonly ok: false; readonly detail: string };

/** PostgreSQL's bound on repetition counts (DUPMAX). */
const DUPMAX = 255;
/** PostgreSQL's largest character code (CHR_MAX). */
const CHR_MAX = 0x7ffffffe;

const CLASSES = new Set(['alnum', 'alpha', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'xdigit', 'word']);

/** PostgreSQL's named collating elements (regc_locale.c), each one character. */
const NAMED: Readonly<Record<string, number>> = (() => {
  const names: [string, number][] = [
    ['NUL', 0], ['SOH', 1], ['STX', 2], ['ETX', 3], ['EOT', 4], ['ENQ', 5], ['ACK', 6], ['BEL', 7], ['alert', 7], ['BS', 8], ['backspace', 8],
    ['HT', 9], ['tab', 9], ['LF', 10], ['newline', 10], ['VT', 11], ['vertical-tab', 11], ['FF', 12], ['form-feed', 12], ['CR', 13],
    ['carriage-return', 13], ['SO', 14], ['SI', 15], ['DLE', 16], ['DC1', 17], ['DC2', 18], ['DC3', 19], ['DC4', 20], ['NAK', 21],
    ['SYN', 22], ['ETB', 23], ['CAN', 24], ['EM', 25], ['SUB', 26], ['ESC', 27], ['IS4', 28], ['FS', 28], ['IS3', 29], ['GS', 29],
    ['IS2', 30], ['RS', 30], ['IS1', 31], ['US', 31], ['space', 32], ['exclamation-mark', 33], ['quotation-mark', 34], ['number-sign', 35],
    ['dollar-sign', 36], ['percent-sign', 37], ['ampersand', 38], ['apostrophe', 39], ['left-parenthesis', 40], ['right-parenthesis', 41],
    ['asterisk', 42], ['plus-sign', 43], ['comma', 44], ['hyphen', 45], ['hyphen-minus', 45], ['period', 46], ['full-stop', 46],
    ['slash', 47], ['solidus', 47], ['zero', 48], ['one', 49], ['two', 50], ['three', 51], ['four', 52], ['five', 53], ['six', 54],
    ['seven', 55], ['eight', 56], ['nine', 57], ['colon', 58], ['semicolon', 59], ['less-than-sign', 60], ['equals-sign', 61],
    ['greater-than-sign', 62], ['question-mark', 63], ['commercial-at', 64], ['left-square-bracket', 91], ['backslash', 92],
    ['reverse-solidus', 92], ['right-square-bracket', 93], ['circumflex', 94], ['circumflex-accent', 94], ['underscore', 95],
    ['low-line', 95], ['grave-accent', 96], ['left-brace', 123], ['left-curly-bracket', 123], ['vertical-line', 124],
    ['right-brace', 125], ['right-curly-bracket', 125], ['tilde', 126], ['DEL', 127],
  ];
  return Object.fromEntries(names);
})();

class Refused extends Error {}

const refuse = (category: string, what: string): never => {
  throw new Refused(`${category}: ${what}`);
};

const BLANK = /^[ \t\n\r\f\v]$/;
const DIGIT = /^[0-9]$/;
const LETTER = /^[a-zA-Z]$/;
const ALNUM = /^[a-zA-Z0-9]$/;

/** Reads a PostgreSQL regular expression; never throws. */
export function readPgRegex(pattern: string): PgRegex {
  try {
    return new Reader([...pattern]).read();
  } catch (err) {
    if (err instanceof Refused) return { ok: false, detail: err.message };
    throw err;
  }
}

type Last = 'none' | 'atom' | 'constraint' | 'quant';

class Reader {
  private i = 0;
  private readonly tokens: PgToken[] = [];
  private ignoreCase: boolean | undefined;
  private lineStop = false;
  private lineAnchors = false;
  private expanded = false;
  private unsupported: string | undefined;
  /** Capturing groups opened so far (PostgreSQL's nsubexp), and those closed. */
  private opened = 0;
  private readonly closed = new Set<number>();

  constructor(private readonly cs: readonly string[]) {}

  read(): PgRegex {
    let literal = false;
    const cs = this.cs;
    if (cs[0] === '*' && cs[1] === '*' && cs[2] === '*') {
      if (cs[3] === '=') literal = true;
      else if (cs[3] === ':') this.i = 4;
      else refuse('quantifier operand invalid', "'***' at the start must be followed by ':' (an expression) or '=' (literal text)");
      if (literal) this.i = 4;
    }
    if (!literal && cs[this.i] === '(' && cs[this.i + 1] === '?' && LETTER.test(cs[this.i + 2] ?? '')) {
      let k = this.i + 2;
      for (; k < cs.length && LETTER.test(cs[k] as string); k++) {
        const o = cs[k] as string;
        if (o === 'b' || o === 'e') this.unsupported ??= `embedded option (?${o}) (basic or extended POSIX syntax)`;
        else if (o === 'c') this.ignoreCase = false;
        else if (o === 'i') this.ignoreCase = true;
        else if (o === 'm' || o === 'n') [this.lineStop, this.lineAnchors] = [true, true];
        else if (o === 'p') [this.lineStop, this.lineAnchors] = [true, false];
        else if (o === 'w') [this.lineStop, this.lineAnchors] = [false, true];
        else if (o === 's') [this.lineStop, this.lineAnchors] = [false, false];
        else if (o === 'q') literal = true;
        else if (o === 't') this.expanded = false;
        else if (o === 'x') this.expanded = true;
        else refuse('invalid embedded option', `'${o}' is not one; use letters of bceimnpqstwx, as in (?i)`);
      }
      if (cs[k] !== ')') refuse('invalid embedded option', 'the embedded options need a closing )');
      this.i = k + 1;
      if (literal) [this.expanded, this.lineStop, this.lineAnchors] = [false, false, false];
    }
    if (literal) {
      for (; this.i < cs.length; this.i++) this.tokens.push({ k: 'char', code: (cs[this.i] as string).codePointAt(0) ?? 0 });
    } else if (this.unsupported === undefined) this.expression();
    return {
      ok: true,
      tokens: this.tokens,
      ignoreCase: this.ignoreCase,
      lineStop: this.lineStop,
      lineAnchors: this.lineAnchors,
      unsupported: this.unsupported,
    };
  }

  /** Leaves out (?#…) comments, and with option x blanks and #-comments. */
  private skip(): void {
    const cs = this.cs;
    for (;;) {
      const c = cs[this.i];
      if (c === '(' && cs[this.i + 1] === '?' && cs[this.i + 2] === '#') {
        while (this.i < cs.length && cs[this.i] !== ')') this.i++;
        this.i++;
      } else if (this.expanded && c !== undefined && BLANK.test(c)) this.i++;
      else if (this.expanded && c === '#') {
        while (this.i < cs.length && cs[this.i] !== '\n') this.i++;
      } else return;
    }
  }

  private expression(): void {
    const cs = this.cs;
    const groups: { capture: number; look: boolean }[] = [];
    let last: Last = 'none';
    const quantifier = (q: string): void => {
      if (last === 'none') refuse('quantifier operand invalid', `'${q}' has nothing before it to repeat`);
      if (last === 'constraint') refuse('quantifier operand invalid', `'${q}' follows a constraint (^, $, \\A, \\Z, \\y, \\Y, \\m, \\M, a word boundary or lookaround), which cannot be repeated`);
      if (last === 'quant') refuse('quantifier operand invalid', `'${q}' follows another quantifier`);
    };
    for (;;) {
      this.skip();
      if (this.i >= cs.length) break;
      const c = cs[this.i] as string;
      if (c === '|') {
        this.tokens.push({ k: 'alt' });
        last = 'none';
        this.i++;
      } else if (c === '(') {
        if (cs[this.i + 1] === '?') {
          const a = cs[this.i + 2];
          const b = cs[this.i + 3];
          if (a === ':') this.i += 3;
          else if (a === '=' || a === '!' || (a === '<' && (b === '=' || b === '!'))) {
            this.unsupported ??= a === '<' ? 'lookbehind' : 'lookahead';
            this.i += a === '<' ? 4 : 3;
          } else if (a !== undefined && LETTER.test(a)) refuse('quantifier operand invalid', `embedded options such as (?${a}) may only start the expression`);
          else refuse('quantifier operand invalid', `'(?${a ?? ''}' starts no group PostgreSQL knows: (?:…), (?=…), (?!…), (?<=…), (?<!…) or a comment (?#…)`);
          groups.push({ capture: 0, look: a !== ':' });
          this.tokens.push({ k: 'open', capture: false });
        } else {
          groups.push({ capture: ++this.opened, look: false });
          this.tokens.push({ k: 'open', capture: true });
          this.i++;
        }
        last = 'none';
      } else if (c === ')') {
        const g = groups.pop();
        if (!g) refuse('parentheses () not balanced', "a ')' without its '('");
        else {
          if (g.capture) this.closed.add(g.capture);
          last = g.look ? 'constraint' : 'atom';
        }
        this.tokens.push({ k: 'close' });
        this.i++;
      } else if (c === '*' || c === '+' || c === '?') {
        quantifier(c);
        this.i++;
        const lazy = cs[this.i] === '?';
        if (lazy) this.i++;
        this.tokens.push({ k: 'quant', min: c === '+' ? 1 : 0, max: c === '?' ? 1 : undefined, lazy });
        last = 'quant';
      } else if (c === '{' && this.digitAfter()) {
        quantifier('{');
        this.tokens.push(this.bound());
        last = 'quant';
      } else if (c === '[') {
        const t = this.bracket();
        this.tokens.push(t);
        last = t.k === 'anchor' ? 'constraint' : 'atom';
      } else if (c === '\\') {
        const t = this.escape(false);
        this.tokens.push(t);
        last = t.k === 'anchor' ? 'constraint' : 'atom';
      } else if (c === '^' || c === '$') {
        this.tokens.push({ k: 'anchor', name: c });
        last = 'constraint';
        this.i++;
      } else {
        this.tokens.push(c === '.' ? { k: 'any' } : { k: 'char', code: c.codePointAt(0) ?? 0 });
        last = 'atom';
        this.i++;
      }
    }
    if (groups.length > 0) refuse('parentheses () not balanced', "a '(' without its ')'");
  }

  /** Whether a digit follows the `{` at `cs[i]` (past blanks and comments with option x): a bound. */
  private digitAfter(): boolean {
    const at = this.i;
    this.i++;
    this.skip();
    const digit = DIGIT.test(this.cs[this.i] ?? '');
    this.i = at;
    return digit;
  }

  /** A bound {m}, {m,}, {m,n} at `{` (a digit follows). */
  private bound(): PgToken {
    const cs = this.cs;
    this.i++;
    const number = (): number | undefined => {
      this.skip();
      let s = '';
      while (DIGIT.test(cs[this.i] ?? '')) s += cs[this.i++];
      this.skip();
      return s === '' ? undefined : Number(s.replace(/^0+(?=\d)/, '').slice(0, 12));
    };
    const min = number() ?? 0;
    let max: number | undefined = min;
    if (cs[this.i] === ',') {
      this.i++;
      max = number();
    }
    if (this.i >= cs.length) refuse('braces {} not balanced', "a '{' without its '}'");
    if (cs[this.i] !== '}') refuse('invalid repetition count(s)', 'a bound is digits in braces, as {2}, {2,} or {2,5}');
    this.i++;
    if (min > DUPMAX || (max !== undefined && max > DUPMAX)) refuse('invalid repetition count(s)', `a bound is at most ${DUPMAX}`);
    if (max !== undefined && min > max) refuse('invalid repetition count(s)', `{${min},${max}}: the first count is larger than the second`);
    const lazy = cs[this.i] === '?';
    if (lazy) this.i++;
    return { k: 'quant', min, max, lazy };
  }

  /** Up to `max` digits of `base` from `cs[i]`: their value and count. */
  private digits(base: number, max: number): [number, number] {
    let n = 0;
    let len = 0;
    for (; len < max; len++) {
      const d = parseInt(this.cs[this.i + len] ?? '', base);
      if (Number.isNaN(d) || !/^[0-9a-zA-Z]$/.test(this.cs[this.i + len] ?? '')) break;
      n = Math.min(n * base + d, Number.MAX_SAFE_INTEGER);
    }
    return [n, len];
  }

  private code(n: number, what: string): PgToken & { k: 'char' } {
    if (n > CHR_MAX) refuse('invalid escape \\ sequence', `${what} is past the largest character code`);
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) this.unsupported ??= `${what}, a code that is no Unicode character`;
    return { k: 'char', code: n };
  }

  /** An escape at the backslash `cs[i]`, outside or inside a bracket expression. */
  private escape(inBracket: boolean): PgToken {
    const cs = this.cs;
    const c = cs[this.i + 1];
    if (c === undefined) return refuse('invalid escape \\ sequence', 'a \\ at the end of the pattern (write \\\\ for a backslash)');
    const invalid = (why: string): never => refuse('invalid escape \\ sequence', `\\${c} ${why}`);
    this.i += 2;
    if (!ALNUM.test(c)) return { k: 'char', code: c.codePointAt(0) ?? 0 };
    const simple: Readonly<Record<string, number>> = { a: 7, b: 8, B: 92, e: 27, f: 12, n: 10, r: 13, t: 9, v: 11 };
    if (simple[c] !== undefined) return { k: 'char', code: simple[c] as number };
    switch (c) {
      case 'c': {
        const x = cs[this.i];
        if (x === undefined) return invalid('needs a character after it');
        this.i++;
        return { k: 'char', code: (x.codePointAt(0) ?? 0) & 0x1f };
      }
      case 'u':
      case 'U': {
        const want = c === 'u' ? 4 : 8;
        const [n, len] = this.digits(16, want);
        if (len !== want) invalid(`needs ${want} hexadecimal digits`);
        this.i += len;
        return this.code(n, `\\${c}${cs.slice(this.i - len, this.i).join('')}`);
      }
      case 'x': {
        const [n, len] = this.digits(16, 255);
        if (len === 0) invalid('needs hexadecimal digits');
        this.i += len;
        return this.code(n, `\\x${cs.slice(this.i - len, Math.min(this.i, this.i - len + 12)).join('')}`);
      }
      case 'd':
      case 's':
      case 'w':
      case 'D':
      case 'S':
      case 'W':
        return { k: 'esc', name: c };
      case 'A':
      case 'Z':
      case 'y':
      case 'Y':
      case 'm':
      case 'M':
        if (inBracket) invalid('is a constraint, which cannot be in a bracket expression');
        return { k: 'anchor', name: c };
      default:
        break;
    }
    if (DIGIT.test(c)) {
      this.i--;
      if (c !== '0') {
        const [n, len] = this.digits(10, DUPMAX);
        if (len === 1 || (n > 0 && n <= this.opened)) {
          if (inBracket) invalid('is a backreference, which cannot be in a bracket expression');
          if (!this.closed.has(n)) refuse('invalid backreference number', `\\${n} refers to no group closed before it`);
          this.i += len;
          this.unsupported ??= `a backreference (\\${n})`;
          return { k: 'char', code: 0 };
        }
      }
      let [n, len] = this.digits(8, 3);
      if (len === 0) invalid('is neither a backreference nor an octal code');
      if (n > 0xff) [n, len] = [n >> 3, len - 1];
      this.i += len;
      return { k: 'char', code: n };
    }
    return invalid("is not one of PostgreSQL's escapes (write \\\\ for a backslash)");
  }

  /** A bracket expression at `[`, or the word boundaries [[:<:]] and [[:>:]]. */
  private bracket(): PgToken {
    const cs = this.cs;
    const seven = cs.slice(this.i, this.i + 7).join('');
    if (seven === '[[:<:]]' || seven === '[[:>:]]') {
      this.i += 7;
      return { k: 'anchor', name: seven === '[[:<:]]' ? 'm' : 'M' };
    }
    try {
      return this.bracketBody();
    } catch (err) {
      // PostgreSQL judges a class name, collating element or range on reading what follows it: at the end, the missing ']'.
      if (err instanceof Refused && this.i >= this.cs.length && /^invalid (character class|collating element)|runs backwards/.test(err.message)) {
        refuse('brackets [] not balanced', "a '[' without its closing ']'");
      }
      throw err;
    }
  }

  private bracketBody(): PgToken {
    const cs = this.cs;
    this.i++;
    const negated = cs[this.i] === '^';
    if (negated) this.i++;
    const members: PgMember[] = [];
    const unclosed = (): never => refuse('brackets [] not balanced', "a '[' without its closing ']'");
    let first = true;
    for (;;) {
      if (this.i >= cs.length) unclosed();
      if (cs[this.i] === ']' && !first) break;
      first = false;
      const from = this.member(unclosed);
      if (cs[this.i] === '-' && cs[this.i + 1] !== ']' && this.i + 1 < cs.length) {
        this.i++;
        const to = this.member(unclosed);
        if (from.k !== 'char' || to.k !== 'char') refuse('invalid character range', 'a class or equivalence class cannot be an end of a range');
        else if (from.code > to.code) refuse('invalid character range', `the range ${String.fromCodePoint(Math.min(from.code, 0x10ffff))}-${String.fromCodePoint(Math.min(to.code, 0x10ffff))} runs backwards`);
        else members.push({ k: 'range', from: from.code, to: to.code });
        if (cs[this.i] === '-' && cs[this.i + 1] !== ']' && this.i + 1 < cs.length) refuse('invalid character range', "a range cannot start where another ends; put '-' first or last to mean itself");
      } else members.push(from.k === 'equiv' ? { k: 'char', code: from.code } : from);
    }
    this.i++;
    return { k: 'bracket', negated, members };
  }

  /** One member of a bracket expression at `cs[i]`. */
  private member(unclosed: () => never): { k: 'char'; code: number } | { k: 'equiv'; code: number } | { k: 'posix'; name: string } | { k: 'esc'; name: PgClassEscape } {
    const cs = this.cs;
    const c = cs[this.i] as string;
    const kind = cs[this.i + 1];
    if (c === '[' && (kind === ':' || kind === '.' || kind === '=')) {
      let end = this.i + 2;
      while (end + 1 < cs.length && !(cs[end] === kind && cs[end + 1] === ']')) end++;
      if (end + 1 >= cs.length) unclosed();
      const inner = cs.slice(this.i + 2, end);
      const name = inner.join('');
      this.i = end + 2;
      if (kind === ':') {
        if (name === '<' || name === '>') refuse('invalid character class', `[:${name}:] stands alone, as [[:${name}:]]`);
        if (!CLASSES.has(name)) refuse('invalid character class', `[:${name.slice(0, 20)}:] is not one of ${[...CLASSES].join(' ')}`);
        return { k: 'posix', name };
      }
      const code = inner.length === 1 ? (name.codePointAt(0) ?? 0) : kind === '.' && Object.hasOwn(NAMED, name) ? NAMED[name] : undefined;
      if (code === undefined) return refuse('invalid collating element', `[${kind}${name.slice(0, 20)}${kind}] is not one character${kind === '.' ? ' or the name of one, as [.space.]' : ''}`);
      return { k: kind === '.' ? 'char' : 'equiv', code };
    }
    if (c === '\\') {
      const t = this.escape(true);
      if (t.k === 'char' || t.k === 'esc') return t;
      return refuse('invalid escape \\ sequence', 'not in a bracket expression');
    }
    this.i++;
    return { k: 'char', code: c.codePointAt(0) ?? 0 };
  }
}

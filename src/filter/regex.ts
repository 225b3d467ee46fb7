/**
 * The check svc makes on a `~` pattern before sending it: is it a regular
 * expression in the service's dialect, PostgreSQL's (advanced regular
 * expressions)? What PostgreSQL reads differently from JavaScript is taken
 * first: the directors `***=` (the rest is literal) and `***:`, and one group
 * of embedded options at the start, `(?i)`, `(?x)`, … (letters b c e i m n p
 * q s t w x); with `x`, blanks and #-comments are left out. The rest is
 * checked by JavaScript's parser without the `u` flag, which takes
 * PostgreSQL's own escapes (`\y`, `\m`, `\M`, `\Z`, `\%`) as it takes any
 * escaped character, and refuses what PostgreSQL refuses too: an unclosed
 * group or bracket, a quantifier with nothing before it, a trailing
 * backslash, `(?` with an option letter past the start. What PostgreSQL
 * runs and a sandbox may not (backreferences, lookaround) is sent: the
 * service judges it. The pattern is only compiled, never run.
 */

const OPTIONS = /^[bceimnpqstwx]$/;
const BLANK = /[ \t\n\r\f\v]/;

/** The pattern without its blanks and #-comments outside brackets and escapes (option x). */
function unexpanded(text: string): string {
  let out = '';
  let inBracket = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      out += text.slice(i, i + 2);
      i++;
    } else if (inBracket) {
      out += c;
      if (c === ']') inBracket = false;
    } else if (c === '[') {
      out += c;
      inBracket = true;
      if (text[i + 1] === '^') out += text[++i];
      if (text[i + 1] === ']') out += text[++i];
    } else if (c === '#') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (!BLANK.test(c)) out += c;
  }
  return out;
}

/** Why `text` is not a PostgreSQL regular expression, or undefined when it is one (as far as svc can tell). */
export function regexProblem(text: string): string | undefined {
  let rest = text;
  if (rest.startsWith('***')) {
    if (rest[3] === '=') return undefined;
    if (rest[3] !== ':') return "'***' at the start must be followed by ':' (the rest is an expression) or '=' (the rest is literal text)";
    rest = rest.slice(4);
  }
  let expanded = false;
  const options = /^\(\?([a-zA-Z]+)(\)?)/.exec(rest);
  if (options) {
    const letters = options[1] ?? '';
    const bad = [...letters].find((o) => !OPTIONS.test(o));
    if (bad !== undefined) return `'${bad}' is not an embedded option; use letters of bceimnpqstwx, as in (?i)`;
    if (options[2] !== ')') return `the embedded options (?${letters} need a closing ')'`;
    for (const o of letters) expanded = o === 'x' ? true : o === 't' ? false : expanded;
    if (letters.includes('q')) return undefined;
    rest = rest.slice(options[0].length);
  }
  try {
    new RegExp(expanded ? unexpanded(rest) : rest);
    return undefined;
  } catch (e) {
    if (/(^|[^\\])(\\\\)*\(\?[a-zA-Z]/.test(rest)) return 'embedded options such as (?i) may only start the expression';
    return e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/: /s, '') : String(e);
  }
}

/**
 * The `~~` operators' LIKE patterns (`%` any run, `_` one character, a
 * backslash makes the next character literal), matched without backtracking.
 *
 * One regular expression `^a.*b.*c$` backtracks polynomially in a backtracking
 * engine (`%a%a%a…b` against a long run of a's hangs for good). Here the
 * pattern is cut at its `%` runs into pieces without quantifiers: the first
 * must match at the start, each middle one at its leftmost place after the
 * previous (which is always right, since a piece matches a fixed number of
 * characters), the last at the end. Every piece is a small regular expression
 * without quantifiers, so case folding stays JavaScript's Unicode-aware `iu`,
 * and a match costs at most (text length × pattern length) steps.
 */

/** A LIKE pattern compiled for one case mode. */
export interface LikeMatcher {
  test(text: string): boolean;
}

const SPECIAL = /[.*+?^${}()|[\]\\/]/g;

/** The pattern's pieces between `%` runs, each as regular-expression source (`_` as one code point). */
export function likePieces(pattern: string): string[] {
  const pieces: string[] = [''];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\' && i + 1 < pattern.length) pieces[pieces.length - 1] += (pattern[++i] ?? '').replace(SPECIAL, '\\$&');
    else if (ch === '%') {
      if (pieces[pieces.length - 1] !== '' || pieces.length === 1) pieces.push('');
    } else if (ch === '_') pieces[pieces.length - 1] += '[\\s\\S]';
    else pieces[pieces.length - 1] += ch.replace(SPECIAL, '\\$&');
  }
  return pieces;
}

/** Compiles a LIKE pattern; `ignoreCase` folds case as JavaScript's `iu` flags do. */
export function compileLike(pattern: string, ignoreCase: boolean): LikeMatcher {
  const flags = ignoreCase ? 'iu' : 'u';
  const pieces = likePieces(pattern);
  if (pieces.length === 1) {
    const whole = new RegExp(`^(?:${pieces[0] ?? ''})$`, flags);
    return { test: (text) => whole.test(text) };
  }
  const first = new RegExp(pieces[0] ?? '', `${flags}y`);
  const middle = pieces.slice(1, -1).filter((p) => p !== '').map((p) => new RegExp(p, `${flags}g`));
  const last = new RegExp(`(?:${pieces[pieces.length - 1] ?? ''})$`, `${flags}g`);
  return {
    test(text) {
      first.lastIndex = 0;
      if (!first.test(text)) return false;
      let pos = first.lastIndex;
      for (const rx of middle) {
        rx.lastIndex = pos;
        if (!rx.test(text)) return false;
        pos = rx.lastIndex;
      }
      last.lastIndex = pos;
      return last.test(text);
    },
  };
}

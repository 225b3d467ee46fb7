/**
 * The `~` operators' regular expressions, evaluated in linear time by RE2
 * (Google's automaton engine, through the `re2` package): no pattern can make
 * a match backtrack for ever, whatever the text. Patterns are PostgreSQL's,
 * read by src/util/pg-regex.ts (PostgreSQL's syntax: what PostgreSQL refuses is
 * `invalid`, in its words) and rewritten in RE2's syntax by regex-dialect.ts (`.`
 * matches a line break, embedded options, `\y` `\m` `\M` word boundaries, `\Z`,
 * …; `*` forms add `i`, Unicode-aware); what only a backtracking engine can do
 * (backreferences, lookahead, lookbehind) or RE2's limits stop is `unsupported`.
 * RE2 is a native addon, loaded on the first pattern, so start-up does not pay for it.
 */
import { LIMITS } from './limits.js';
import { loadRe2, toRe2 } from './regex-dialect.js';

/** A compiled pattern, or why there is none. */
export type CompiledRegex =
  | { readonly ok: true; test(text: string): boolean }
  | { readonly ok: false; readonly reason: 'invalid' | 'unsupported' | 'too-long'; readonly detail: string };

/** Patterns compiled so far (both outcomes), by flags and text; cleared when it grows past this. */
const CACHE_SIZE = 1000;
const cache = new Map<string, CompiledRegex>();

function compile(pattern: string, ignoreCase: boolean): CompiledRegex {
  if (pattern.length > LIMITS.patternLength) return { ok: false, reason: 'too-long', detail: `${pattern.length} characters` };
  const dialect = toRe2(pattern, ignoreCase);
  if (!dialect.ok) return dialect;
  try {
    const rx = new (loadRe2())(dialect.source, dialect.flags);
    return { ok: true, test: (text) => rx.test(text) };
  } catch (err) {
    // toRe2 has read the pattern by PostgreSQL's rules: what RE2 still refuses is past its limits
    // (a repetition of repetitions over 1,000, a program too large), which PostgreSQL runs.
    return { ok: false, reason: 'unsupported', detail: `RE2 cannot compile it: ${(err as Error).message}` };
  }
}

/** Compiles a filter's regular expression (cached); never throws. */
export function compileRegex(pattern: string, ignoreCase: boolean): CompiledRegex {
  const key = `${ignoreCase ? 'i' : 's'}:${pattern}`;
  let rx = cache.get(key);
  if (!rx) {
    rx = compile(pattern, ignoreCase);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(key, rx);
  }
  return rx;
}

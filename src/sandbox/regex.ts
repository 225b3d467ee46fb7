/**
 * The `~` operators' regular expressions, evaluated in linear time by RE2
 * (Google's automaton engine, through the `re2` package): no pattern can make
 * a match backtrack for ever, whatever the text. The syntax is RE2's with the
 * `u` flag (`*` forms add `i`, Unicode-aware), which takes PostgreSQL's POSIX
 * classes and escaped punctuation, and `\Z` read as `\z`; what only a
 * backtracking engine can do (backreferences, lookahead, lookbehind) is
 * refused with a reason.
 * RE2 is a native addon, loaded on the first pattern, so start-up does not pay for it.
 */
import { createRequire } from 'node:module';
import type RE2Type from 're2';
import { LIMITS } from './limits.js';

/** A compiled pattern, or why there is none. */
export type CompiledRegex =
  | { readonly ok: true; test(text: string): boolean }
  | { readonly ok: false; readonly reason: 'invalid' | 'unsupported' | 'too-long'; readonly detail: string };

let engine: typeof RE2Type | undefined;

function re2(): typeof RE2Type {
  engine ??= createRequire(import.meta.url)('re2') as typeof RE2Type;
  return engine;
}

/** Patterns compiled so far (both outcomes), by flags and text; cleared when it grows past this. */
const CACHE_SIZE = 1000;
const cache = new Map<string, CompiledRegex>();

/** PostgreSQL's `\Z` (the end of the text) as RE2 spells it, `\z`; every other escape pair is kept as written. */
function postgresEscapes(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c !== '\\' || i + 1 >= pattern.length) {
      out += c;
      continue;
    }
    const next = pattern[++i] as string;
    out += next === 'Z' ? '\\z' : `\\${next}`;
  }
  return out;
}

function compile(pattern: string, ignoreCase: boolean): CompiledRegex {
  if (pattern.length > LIMITS.patternLength) return { ok: false, reason: 'too-long', detail: `${pattern.length} characters` };
  const flags = ignoreCase ? 'iu' : 'u';
  try {
    // RE2 takes what PostgreSQL's expressions mostly are: POSIX classes ([[:alpha:]]), escaped punctuation (\%, \-).
    const rx = new (re2())(postgresEscapes(pattern), flags);
    return { ok: true, test: (text) => rx.test(text) };
  } catch (err) {
    // What RE2 refuses is either not an expression at all, or one only a backtracking engine can run
    // (backreferences, lookaround), which JavaScript's syntax check (never run) tells apart.
    try {
      new RegExp(pattern, flags);
    } catch {
      return { ok: false, reason: 'invalid', detail: (err as Error).message };
    }
    return { ok: false, reason: 'unsupported', detail: (err as Error).message };
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

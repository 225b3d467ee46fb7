/**
 * The `~` operators' regular expressions, evaluated in linear time by RE2
 * (Google's automaton engine, through the `re2` package): no pattern can make
 * a match backtrack for ever, whatever the text. The syntax is JavaScript's
 * (`u` flag; `*` forms add `i`, Unicode-aware); what only a backtracking engine
 * can do (backreferences, lookahead, lookbehind) is refused with a reason.
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

function compile(pattern: string, ignoreCase: boolean): CompiledRegex {
  if (pattern.length > LIMITS.patternLength) return { ok: false, reason: 'too-long', detail: `${pattern.length} characters` };
  const flags = ignoreCase ? 'iu' : 'u';
  try {
    // Only checks the syntax: compiling never backtracks, and this RegExp never runs.
    new RegExp(pattern, flags);
  } catch (err) {
    return { ok: false, reason: 'invalid', detail: (err as Error).message };
  }
  try {
    const rx = new (re2())(pattern, flags);
    return { ok: true, test: (text) => rx.test(text) };
  } catch (err) {
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

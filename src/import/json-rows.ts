/**
 * The values of an NDJSON text (one a line; blank lines skipped) or of a JSON
 * array (each element with the line it starts on, found by a scanner that
 * follows strings and nesting, so one bad element is named by its line while
 * the others are read). Pure.
 */
import { UsageError } from '../errors.js';

/** One value, or why its text is not JSON; `line` is where it starts, `lastLine` where it ends. */
export interface JsonValueAt {
  readonly line: number;
  readonly lastLine: number;
  readonly value?: unknown;
  readonly problem?: string;
}

/** Could the text hold a number beyond a double (an exponent of three digits, or 309 digits in a row)? A cheap first look. */
export const MAYBE_HUGE = /\d[eE]\+?\d{3}|\d{309}/;

/** Where in a parsed value the first number beyond a double is (JSON.parse makes it Infinity): its path, '' at the top; undefined when none. */
export function nonFiniteAt(v: unknown, depth = 0): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : '';
  if (typeof v !== 'object' || v === null || depth > 128) return undefined;
  for (const [k, x] of Object.entries(v)) {
    const at = nonFiniteAt(x, depth + 1);
    if (at !== undefined) return at ? `${k}.${at}` : k;
  }
  return undefined;
}

/** The first number in a JSON text (outside its strings) beyond a double, as written. */
function hugeLiteral(text: string): string | undefined {
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (c !== '-' && (c < '0' || c > '9')) continue;
    number.lastIndex = i;
    const m = number.exec(text);
    if (!m) continue;
    if (!Number.isFinite(Number(m[0]))) return m[0];
    i += m[0].length - 1;
  }
  return undefined;
}

/** A number beyond a double, named with its path and as written (JSON.parse would make it Infinity, sent as null). */
export function hugeNumberProblem(path: string, literal: string | undefined): string {
  return `${path ? `${path}: ` : ''}${literal ?? 'a number'} is out of range: it is beyond what a number can hold (about ±1.8e308)`;
}

function parseOne(text: string): { value?: unknown; problem?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    const why = err instanceof RangeError ? 'nested too deeply' : (err as Error).message.split('\n')[0];
    return { problem: `not valid JSON (${why})` };
  }
  if (MAYBE_HUGE.test(text)) {
    const at = nonFiniteAt(value);
    if (at !== undefined) return { value, problem: hugeNumberProblem(at, hugeLiteral(text)) };
  }
  return { value };
}

/** NDJSON: one JSON value a line (a trailing CR is dropped). */
export function* ndjsonValues(text: string): Generator<JsonValueAt> {
  let n = 0;
  for (const raw of text.split('\n')) {
    n++;
    const t = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (t.trim() === '') continue;
    yield { line: n, lastLine: n, ...parseOne(t) };
  }
}

const WS = new Set([' ', '\t', '\r', '\n']);

/**
 * A JSON array's elements with their lines. A text that is not one array
 * (or whose strings or brackets never close) is a usage error naming the line.
 */
export function* jsonArrayValues(text: string, source: string): Generator<JsonValueAt> {
  let i = 0;
  let line = 1;
  const skip = (): void => {
    while (i < text.length && WS.has(text[i] as string)) if (text[i++] === '\n') line++;
  };
  skip();
  if (text[i] !== '[') throw new UsageError(`${source} does not hold a JSON array (line ${line}); give an array of objects, one object per line (NDJSON), or CSV`);
  i++;
  for (;;) {
    skip();
    if (text[i] === ']') break;
    if (i >= text.length) throw new UsageError(`${source}: the JSON array is never closed (line ${line}); end it with ]`);
    const start = i;
    const startLine = line;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '\n') line++;
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        if (depth === 0) break;
        depth--;
      } else if (ch === ',' && depth === 0) break;
    }
    if (i >= text.length) throw new UsageError(`${source}: the element starting on line ${startLine} is never closed; check its quotes and brackets`);
    const slice = text.slice(start, i);
    const endLine = startLine + (slice.trimEnd().split('\n').length - 1);
    yield { line: startLine, lastLine: endLine, ...parseOne(slice) };
    if (text[i] === ',') i++;
  }
  i++;
  skip();
  if (i < text.length) throw new UsageError(`${source}: text after the JSON array's closing ] (line ${line}); give one array`);
}

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

function parseOne(text: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    const why = err instanceof RangeError ? 'nested too deeply' : (err as Error).message.split('\n')[0];
    return { problem: `not valid JSON (${why})` };
  }
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

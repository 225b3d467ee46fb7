/**
 * Every bound the sandbox puts on a request, in one place, as data. Each is
 * far above what svc or a real script sends (svc's --filter, --fields, --sort
 * and --search, the export engine's pages, IN lists up to the service's
 * 10,000), and far below what would exhaust memory, SQLite's own limits or the
 * event loop. A request over a bound gets a 400 naming it (see `overLimit`).
 */
import { badRequest, type HttpError } from './errors.js';

export const LIMITS = {
  /** Bytes of a request body (the service states no limit; this keeps a client from eating memory). */
  bodyBytes: 32 * 1024 * 1024,
  /** Nesting of arrays and objects in a JSON body, or of brackets in a form key; SQLite's JSON functions stop at 1,000. */
  bodyDepth: 128,
  /** Nesting of composites (AND / OR / NOT) in a filter. */
  filterDepth: 32,
  /** Conditions in one filter, counted over all composites; IN lists count as one. */
  filterConditions: 1_000,
  /** Values in one IN or !IN list: the service's own page limit. */
  inList: 10_000,
  /** Characters of a `~` regular expression or `~~` LIKE pattern. */
  patternLength: 1_000,
  /** `~` and `~~` conditions in one filter (each is a function call per row; join alternatives in one pattern). */
  patternConditions: 64,
  /** Milliseconds of pattern matching (`~`, `~~`, `query`) one query may spend; see pattern-budget.ts. */
  patternBudgetMs: 2_000,
  /**
   * Characters of one stored text value (a string field, or an extension
   * value's JSON text): one pattern call is linear in it, and this keeps a
   * single call, which no budget can interrupt, to about a second.
   */
  textLength: 1_048_576,
  /** Characters of the `query` search string. */
  searchLength: 1_000,
  /** Words of the `query` search string (each is ANDed over every searchable field). */
  searchTerms: 32,
  /** Keys of `sort` (SQLite refuses more than 2,000 ORDER BY terms). */
  sortKeys: 64,
  /** Paths of `fields` (SQLite refuses more than 2,000 result columns). */
  fields: 500,
  /** Characters of one field path (`lastname`, `contact.city`, `extdata.<name>`) or filter operator. */
  pathLength: 1_000,
  /** Related-record and extension-field joins of one query (SQLite joins at most 64 tables). */
  joins: 48,
} as const;

/** The 400 for a request over one of the limits: `<what> <is over>; the sandbox allows at most <n>[; <hint>]`. */
export function overLimit(what: string, limit: number, hint?: string): HttpError {
  return badRequest(`${what}; the sandbox allows at most ${limit.toLocaleString('en-US')}${hint ? ` (${hint})` : ''}`);
}

/**
 * A client's text as a message may quote it: at most `max` characters (cut
 * with '…'), control characters escaped, so a message stays one short line.
 */
export function excerpt(text: string, max = 60): string {
  const cut = text.length <= max ? text : `${text.slice(0, max)}…`;
  return cut.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A client's value as a message may quote it: its JSON text, cut like
 * `excerpt`; a number JSON cannot spell (1e400 parses to Infinity) as `Infinity`.
 */
export function excerptValue(value: unknown, max = 60): string {
  if (typeof value === 'string') return `"${excerpt(value, max)}"`;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined; // Too deep to print; the body limit normally stops that earlier.
  }
  return excerpt(json ?? String(typeof value), max);
}

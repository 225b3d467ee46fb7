/**
 * The sandbox's embedded database: one SQLite file per data dir (or :memory:),
 * with the SQL functions the service's operators need, PostgreSQL-style:
 * `~` is a regular expression, `~~` is LIKE with % and _, `*` forms ignore case
 * (Unicode-aware, unlike SQLite's ASCII-only LIKE). Each call runs in time
 * linear in the text (regex.ts, like-pattern.ts), and each checks the running
 * query's time budget first (pattern-budget.ts), so no number of calls can
 * stall the server either.
 */
import Database from 'better-sqlite3';
import { compileLike, type LikeMatcher } from './like-pattern.js';
import { checkPatternBudget } from './pattern-budget.js';
import { compileRegex } from './regex.js';

export type Db = Database.Database;

const likeCache = new Map<string, LikeMatcher>();
const searchCache = new Map<unknown, LikeMatcher[]>();

function toText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : String(v);
}

function likeMatcher(pattern: string, ignoreCase: boolean): LikeMatcher {
  const key = `${ignoreCase ? 'i' : 's'}:${pattern}`;
  let m = likeCache.get(key);
  if (!m) {
    m = compileLike(pattern, ignoreCase);
    if (likeCache.size > 1000) likeCache.clear();
    likeCache.set(key, m);
  }
  return m;
}

/** The case-insensitive LIKE matchers of a search, from their JSON array of patterns (cached like LIKE patterns). */
function searchPatterns(json: unknown): LikeMatcher[] {
  let list = searchCache.get(json);
  if (!list) {
    const patterns = typeof json === 'string' ? (JSON.parse(json) as unknown) : [];
    list = (Array.isArray(patterns) ? patterns : []).map((p) => likeMatcher(String(p), true));
    if (searchCache.size > 1000) searchCache.clear();
    searchCache.set(json, list);
  }
  return list;
}

/** A text PostgreSQL's numeric reads: digits with an optional sign, point and exponent, blanks around. */
const NUMERIC_TEXT = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const INT64 = 2n ** 63n;

/** The number an extension value stands for: itself, the number a text reads as (whole ones exactly), else null. */
function numberOf(v: unknown): number | bigint | null {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (typeof v !== 'string' || !NUMERIC_TEXT.test(v)) return null;
  const t = v.trim();
  if (/^[-+]?\d+$/.test(t)) {
    const b = BigInt(t);
    if (b >= -INT64 && b < INT64) return b;
  }
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/**
 * Registers svc_number(value), the number an extension value stands for
 * (NULL for a text that is no number); svc_regexp(value, pattern, ci) and
 * svc_like(value, pattern, ci): 1, 0 or NULL; and svc_search(patterns, value…): 1 when each of the JSON
 * array's case-insensitive LIKE patterns matches at least one of the values
 * (one call per row for a whole `query` search), else 0. The pattern functions
 * throw PatternBudgetError once the running query's budget is spent.
 */
export function registerFunctions(db: Db): void {
  db.function('svc_number', { deterministic: true }, numberOf);
  db.function('svc_regexp', { deterministic: true }, (value: unknown, pattern: unknown, ci: unknown) => {
    checkPatternBudget();
    const text = toText(value);
    if (text === null || typeof pattern !== 'string') return null;
    const rx = compileRegex(pattern, ci === 1);
    if (!rx.ok) throw new Error(`invalid regular expression: ${pattern.slice(0, 100)}`);
    return rx.test(text) ? 1 : 0;
  });
  db.function('svc_like', { deterministic: true }, (value: unknown, pattern: unknown, ci: unknown) => {
    checkPatternBudget();
    const text = toText(value);
    if (text === null || typeof pattern !== 'string') return null;
    return likeMatcher(pattern, ci === 1).test(text) ? 1 : 0;
  });
  db.function('svc_search', { deterministic: true, varargs: true }, (patterns: unknown, ...values: unknown[]) => {
    checkPatternBudget();
    const texts = values.map(toText).filter((t): t is string => t !== null);
    return searchPatterns(patterns).every((m) => texts.some((t) => m.test(t))) ? 1 : 0;
  });
}

/** Opens (creating when needed) the sandbox database. */
export function openDatabase(file: string): Db {
  const db = new Database(file);
  if (file !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  registerFunctions(db);
  return db;
}

/** Quotes an SQL identifier. */
export function q(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The sandbox's embedded database: one SQLite file per data dir (or :memory:),
 * with the SQL functions the service's operators need, PostgreSQL-style:
 * `~` is a regular expression, `~~` is LIKE with % and _, `*` forms ignore case
 * (Unicode-aware, unlike SQLite's ASCII-only LIKE). Both run in time linear in
 * the text (regex.ts, like-pattern.ts), so no pattern can stall the server.
 */
import Database from 'better-sqlite3';
import { compileLike, type LikeMatcher } from './like-pattern.js';
import { compileRegex } from './regex.js';

export type Db = Database.Database;

const likeCache = new Map<string, LikeMatcher>();

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

/** Registers svc_regexp(value, pattern, ci) and svc_like(value, pattern, ci): 1, 0 or NULL. */
export function registerFunctions(db: Db): void {
  db.function('svc_regexp', { deterministic: true }, (value: unknown, pattern: unknown, ci: unknown) => {
    const text = toText(value);
    if (text === null || typeof pattern !== 'string') return null;
    const rx = compileRegex(pattern, ci === 1);
    if (!rx.ok) throw new Error(`invalid regular expression: ${pattern.slice(0, 100)}`);
    return rx.test(text) ? 1 : 0;
  });
  db.function('svc_like', { deterministic: true }, (value: unknown, pattern: unknown, ci: unknown) => {
    const text = toText(value);
    if (text === null || typeof pattern !== 'string') return null;
    return likeMatcher(pattern, ci === 1).test(text) ? 1 : 0;
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

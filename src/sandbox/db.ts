/**
 * The sandbox's embedded database: one SQLite file per data dir (or :memory:),
 * with the SQL functions the service's operators need, PostgreSQL-style:
 * `~` is a regular expression, `~~` is LIKE with % and _, `*` forms ignore case
 * (Unicode-aware, unlike SQLite's ASCII-only LIKE).
 */
import Database from 'better-sqlite3';

export type Db = Database.Database;

const regexCache = new Map<string, RegExp | null>();

/** Compiles a PostgreSQL-style regular expression for JavaScript; null when invalid. */
export function compileRegex(pattern: string, ignoreCase: boolean): RegExp | null {
  const key = `${ignoreCase ? 'i' : 's'}:${pattern}`;
  let rx = regexCache.get(key);
  if (rx === undefined) {
    try {
      rx = new RegExp(pattern, ignoreCase ? 'iu' : 'u');
    } catch {
      rx = null;
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, rx);
  }
  return rx;
}

/** Turns a LIKE pattern (% any run, _ one character, backslash escapes) into a RegExp. */
export function likeToRegex(pattern: string, ignoreCase: boolean): RegExp {
  let src = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\' && i + 1 < pattern.length) {
      src += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else if (ch === '%') src += '[\\s\\S]*';
    else if (ch === '_') src += '[\\s\\S]';
    else src += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, ignoreCase ? 'iu' : 'u');
}

const likeCache = new Map<string, RegExp>();

function toText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : String(v);
}

/** Registers svc_regexp(value, pattern, ci) and svc_like(value, pattern, ci): 1, 0 or NULL. */
export function registerFunctions(db: Db): void {
  db.function('svc_regexp', { deterministic: true }, (value: unknown, pattern: unknown, ci: unknown) => {
    const text = toText(value);
    if (text === null || typeof pattern !== 'string') return null;
    const rx = compileRegex(pattern, ci === 1);
    if (rx === null) throw new Error(`invalid regular expression: ${pattern}`);
    return rx.test(text) ? 1 : 0;
  });
  db.function('svc_like', { deterministic: true }, (value: unknown, pattern: unknown, ci: unknown) => {
    const text = toText(value);
    if (text === null || typeof pattern !== 'string') return null;
    const key = `${ci === 1 ? 'i' : 's'}:${pattern}`;
    let rx = likeCache.get(key);
    if (!rx) {
      rx = likeToRegex(pattern, ci === 1);
      if (likeCache.size > 1000) likeCache.clear();
      likeCache.set(key, rx);
    }
    return rx.test(text) ? 1 : 0;
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

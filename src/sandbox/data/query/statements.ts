/**
 * Prepared statements cached by SQL text, per database. Requests of the same
 * shape share one statement, since values are bound, never written into the SQL.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../db.js';

/** Statements kept per database; the least recently used is dropped beyond this. */
export const STATEMENT_CACHE_SIZE = 256;

const caches = new WeakMap<Db, Map<string, Statement>>();

/** The prepared statement for this SQL text, from the cache when it is there. */
export function prepareCached(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (stmt) {
    cache.delete(sql); // Re-inserted below: the Map's order doubles as recency.
  } else {
    stmt = db.prepare(sql);
    if (cache.size >= STATEMENT_CACHE_SIZE) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
  }
  cache.set(sql, stmt);
  return stmt;
}

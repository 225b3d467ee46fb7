/**
 * Shared by the s8-data attack tests: values the service's own rules would
 * refuse, put straight into the sandbox's database, as a hostile or broken
 * service may send them.
 */
import type Database from 'better-sqlite3';

/** Runs one SQL statement on the sandbox's database with its CHECK constraints off. */
export function forceSql(db: Database.Database, sql: string, ...params: unknown[]): void {
  db.pragma('ignore_check_constraints = ON');
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.pragma('ignore_check_constraints = OFF');
  }
}

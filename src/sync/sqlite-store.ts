/**
 * The SQLite store (better-sqlite3, loaded only here). WAL journal: a
 * transaction is on disk whole or not at all, whatever happens to the
 * process. Money has no exact type in SQLite: it is stored as REAL, which
 * holds the double the service keeps exactly (see columns.ts).
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import type { Database as Db, Statement } from 'better-sqlite3';
import { SvcError } from '../errors.js';
import { shown } from '../util/shown.js';
import { isNativeLoadFailure, nativeModuleError } from '../util/native-module.js';
import { DELETED_AT, ident, rowCells, type ColumnKind } from './columns.js';
import { heldWhere, ID_INDEX, inUse, notADatabase, STATE_TABLE, type HeldCopy, type SyncState, type SyncStore, type Upserted } from './store.js';

const TYPES: Readonly<Record<ColumnKind, string>> = {
  smallint: 'INTEGER',
  int: 'INTEGER',
  bigint: 'INTEGER',
  bool: 'INTEGER',
  double: 'REAL',
  money: 'REAL',
  text: 'TEXT',
  json: 'TEXT',
  any: 'ANY',
};

/** Bytes a page of a new database (see openSqlite). */
const PAGE_SIZE = 2048;

/** The state table's columns, in order (a table of that name with others is not svc's). */
const STATE_COLUMNS = ['family', 'filter', 'fields', 'keep_deleted', 'columns', 'cursor', 'phase', 'after_id', 'svc_version', 'last_reconcile', 'runs', 'runs_since_reconcile', 'updated_at'];

const STATE_DDL = `CREATE TABLE IF NOT EXISTS ${STATE_TABLE} (
  family TEXT PRIMARY KEY NOT NULL, filter TEXT NOT NULL, fields TEXT NOT NULL, keep_deleted INTEGER NOT NULL,
  columns TEXT NOT NULL, cursor INTEGER, phase TEXT NOT NULL, after_id INTEGER NOT NULL, svc_version TEXT NOT NULL,
  last_reconcile INTEGER, runs INTEGER NOT NULL, runs_since_reconcile INTEGER NOT NULL, updated_at INTEGER NOT NULL)`;

function stateParams(s: SyncState): unknown[] {
  return [s.family, s.filter, s.fields, s.keepDeleted ? 1 : 0, s.columns, s.cursor, s.phase, s.afterId, s.svcVersion, s.lastReconcile, s.runs, s.runsSinceReconcile, s.updatedAt];
}

function stateOf(r: Record<string, unknown>): SyncState {
  return {
    family: String(r.family),
    filter: String(r.filter),
    fields: String(r.fields),
    keepDeleted: r.keep_deleted === 1,
    columns: String(r.columns),
    cursor: r.cursor === null ? null : Number(r.cursor),
    phase: r.phase === 'ready' ? 'ready' : 'initial',
    afterId: Number(r.after_id),
    svcVersion: String(r.svc_version),
    lastReconcile: r.last_reconcile === null ? null : Number(r.last_reconcile),
    runs: Number(r.runs),
    runsSinceReconcile: Number(r.runs_since_reconcile),
    updatedAt: Number(r.updated_at),
  };
}

/** better-sqlite3, whose compiled part loads at the first connection; an install without it is one line with the fix. */
async function sqliteModule(): Promise<typeof import('better-sqlite3')> {
  try {
    return (await import('better-sqlite3')).default;
  } catch (err) {
    throw isNativeLoadFailure(err) ? noSqlite() : err;
  }
}

function noSqlite(): SvcError {
  return nativeModuleError(['better-sqlite3'], 'a SQLite copy', 'sync into a FILE.duckdb');
}

export async function openSqlite(path: string): Promise<SyncStore> {
  const Database = await sqliteModule();
  let db: Db;
  let hasState: boolean;
  try {
    db = new Database(path);
    // A new file gets 2 KB pages (an existing one keeps its own): a later run's changed records are scattered over
    // the table, and each costs a page written twice (the WAL, then the file), so half the page is half the bytes.
    // 1M accounts, 1% changed: the incremental run 8% faster; the first run the same; rows up to 2 KB stay in the page.
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 0');
    hasState = checkStateTable(db, path);
  } catch (err) {
    if (err instanceof SvcError) throw err;
    if (isNativeLoadFailure(err)) throw noSqlite();
    throw notADatabase(path, 'SQLite', err);
  }
  // The file is changed only by the first write (WAL, and the state table): a file refused before it (a table of
  // the family's name that svc did not make) is left byte for byte as it was.
  let saveState: Statement | undefined;
  const forWrites = (): Statement => {
    if (saveState) return saveState;
    try {
      db.pragma('journal_mode = WAL');
      db.exec(STATE_DDL);
    } catch (err) {
      throw inUse(path, err) ?? err;
    }
    hasState = true;
    return (saveState = db.prepare(`INSERT OR REPLACE INTO ${STATE_TABLE} (${STATE_COLUMNS.join(', ')}) VALUES (${STATE_COLUMNS.map(() => '?').join(', ')})`));
  };
  const statements = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };
  /** Families whose ID index is known to be there. */
  const indexed = new Set<string>();
  /**
   * The narrow index of a family's live IDs (the deleted-at column first under
   * --keep-deleted). Comparing IDs counts and lists them from it instead of
   * reading every row of the wide table: a count of 1M accounts takes 0.3 ms
   * instead of 30 ms. Built once the first pass is whole (at once: half the
   * cost of keeping it up to date through a million inserts); a copy without
   * it (an older svc's) gets it on its next run.
   */
  const idIndex = (family: string, keepDeleted: boolean): void => {
    if (indexed.has(family)) return;
    indexed.add(family);
    forWrites();
    // A table, view or index of the user's with that name: left alone, and the copy goes without (only slower counts).
    const theirs = db.prepare(`SELECT type, tbl_name FROM sqlite_master WHERE lower(name) = lower(?)`).get(`${ID_INDEX}${family}`) as { type: string; tbl_name: string } | undefined;
    if (theirs && (theirs.type !== 'index' || theirs.tbl_name !== family)) return;
    // Built through a small page cache: the default (16 MB) would fill with the table's pages read once.
    const cache = db.pragma('cache_size', { simple: true }) as number;
    db.pragma('cache_size = -2000');
    try {
      db.exec(`CREATE INDEX IF NOT EXISTS ${ident(`${ID_INDEX}${family}`)} ON ${ident(family)} (${keepDeleted ? `${ident(DELETED_AT)}, ` : ''}ID)`);
    } finally {
      db.pragma(`cache_size = ${Number(cache)}`);
    }
  };
  const store: SyncStore = {
    kind: 'sqlite',
    path,
    async readState(family) {
      if (!hasState) return undefined;
      const row = db.prepare(`SELECT * FROM ${STATE_TABLE} WHERE family = ?`).get(family) as Record<string, unknown> | undefined;
      return row ? stateOf(row) : undefined;
    },
    async hasTable(name) {
      return db.prepare(`SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND lower(name) = lower(?)`).get(name) !== undefined;
    },
    async create(state, columns, drop) {
      const table = ident(state.family);
      const keep = state.keepDeleted ? `, ${ident(DELETED_AT)} INTEGER` : '';
      const defs = columns.map((c) => `${ident(c.name)} ${TYPES[c.kind]}${c.name === 'ID' ? ' PRIMARY KEY NOT NULL' : ''}`).join(', ');
      const save = forWrites();
      db.transaction(() => {
        if (drop) db.exec(`DROP TABLE IF EXISTS ${table}`);
        db.exec(`CREATE TABLE ${table} (${defs}${keep}) STRICT`);
        save.run(...stateParams(state));
      })();
      indexed.delete(state.family);
      statements.clear();
    },
    async upsert(family, columns, rows, state, fresh) {
      const table = ident(family);
      const names = columns.map((c) => ident(c.name));
      const keepDeleted = state?.keepDeleted ?? (await store.readState(family))?.keepDeleted ?? false;
      const marks = names.map(() => '?').join(', ');
      const insert = prepared(
        fresh
          ? `INSERT INTO ${table} (${names.join(', ')}) VALUES (${marks}) ON CONFLICT(ID) DO UPDATE SET ${names.slice(1).map((n) => `${n} = excluded.${n}`).join(', ') || 'ID = ID'}`
          : `INSERT INTO ${table} (${names.join(', ')}) VALUES (${marks}) ON CONFLICT(ID) DO NOTHING`,
      );
      const rest = names.slice(1);
      const differs = [...rest.map((n) => `${n} IS NOT ?`), ...(keepDeleted ? [`${ident(DELETED_AT)} IS NOT NULL`] : [])];
      const sets = [...rest.map((n) => `${n} = ?`), ...(keepDeleted ? [`${ident(DELETED_AT)} = NULL`] : [])];
      const update = sets.length ? prepared(`UPDATE ${table} SET ${sets.join(', ')} WHERE ID = ? AND (${differs.join(' OR ') || '0'})`) : undefined;
      const done: Upserted = { inserted: 0, updated: 0 };
      const save = forWrites();
      db.transaction(() => {
        for (const row of rows) {
          const cells = rowCells(columns, row);
          if (fresh) {
            insert.run(...cells);
            done.inserted++;
            continue;
          }
          const values = cells.slice(1);
          if (update && update.run(...values, cells[0], ...values).changes > 0) done.updated++;
          else if (insert.run(...cells).changes > 0) done.inserted++;
        }
        if (state) save.run(...stateParams(state));
      })();
      return done;
    },
    async remove(family, ids, deletedAt) {
      const table = ident(family);
      const stmt =
        deletedAt === undefined
          ? prepared(`DELETE FROM ${table} WHERE ID = ?`)
          : prepared(`UPDATE ${table} SET ${ident(DELETED_AT)} = ? WHERE ID = ? AND ${ident(DELETED_AT)} IS NULL`);
      let n = 0;
      forWrites();
      db.transaction(() => {
        for (const id of ids) n += (deletedAt === undefined ? stmt.run(id) : stmt.run(deletedAt, id)).changes;
      })();
      return n;
    },
    async indexIds(family, keepDeleted) {
      idIndex(family, keepDeleted);
    },
    async heldIds(family, after, upTo, keepDeleted) {
      idIndex(family, keepDeleted);
      const params: number[] = [];
      const where = heldWhere(after, upTo, keepDeleted, (n) => (params.push(n), '?'));
      return prepared(`SELECT ID FROM ${ident(family)}${where} ORDER BY ID`).pluck().all(...params) as number[];
    },
    async countHeld(family, after, upTo, keepDeleted) {
      idIndex(family, keepDeleted);
      const params: number[] = [];
      const where = heldWhere(after, upTo, keepDeleted, (n) => (params.push(n), '?'));
      return Number(prepared(`SELECT count(*) FROM ${ident(family)}${where}`).pluck().get(...params));
    },
    async maxHeld(family, keepDeleted) {
      idIndex(family, keepDeleted);
      const v = prepared(`SELECT max(ID) FROM ${ident(family)}${heldWhere(0, null, keepDeleted, String)}`).pluck().get();
      return v === null || v === undefined ? undefined : Number(v);
    },
    async saveState(state) {
      forWrites().run(...stateParams(state));
    },
    async close() {
      db.close();
    },
  };
  return store;
}

/** Whether a SQLite file's header says WAL (its bytes 18 and 19 are 2), read as bytes, not opened as a database. */
function walHeader(path: string): boolean {
  const head = Buffer.alloc(20);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    return readSync(fd, head, 0, 20, 0) === 20 && head[18] === 2 && head[19] === 2;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * What a copy holds, read without writing: nothing is made in the file (no
 * state table in a database that has none, no index), and a sync writing
 * meanwhile is not disturbed (WAL readers see its last commit). A WAL copy
 * closed cleanly has no -wal or -shm; a read-only connection would make both
 * and, unable to checkpoint, leave them behind. So such a copy is read
 * through a read-write connection kept from writing (query_only), which
 * removes them as it closes, as the last sync did. A busy file is refused at
 * once (as a sync refuses it), never after a wait.
 */
export async function readSqliteCopy(path: string): Promise<HeldCopy[]> {
  const Database = await sqliteModule();
  const clean = walHeader(path) && !existsSync(`${path}-wal`) && !existsSync(`${path}-shm`);
  let db: Db;
  try {
    db = openQuiet(Database, path, clean);
  } catch (err) {
    throw unreadable(path, err);
  }
  try {
    let states: SyncState[];
    try {
      checkStateTable(db, path);
      const there = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(STATE_TABLE) !== undefined;
      states = there ? (db.prepare(`SELECT * FROM ${STATE_TABLE} ORDER BY family`).all() as Record<string, unknown>[]).map(stateOf) : [];
    } catch (err) {
      throw unreadable(path, err);
    }
    return states.map((state) => ({ state, ...countRows(db, state) }));
  } finally {
    db.close();
  }
}

/** Why a copy could not be read, in one line (exit 1): a write to roll back first, in use, or not a database. */
function unreadable(path: string, err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  if (isNativeLoadFailure(err)) return noSqlite();
  if ((err as { code?: unknown } | null)?.code === 'SQLITE_READONLY_ROLLBACK') {
    return new SvcError(`${shown(path)} holds a write that was interrupted (its -journal file), which must be rolled back before it can be read; run a sync into it, or open it once with sqlite3, then ask again`);
  }
  return notADatabase(path, 'SQLite', err);
}

/** A connection that cannot write: read-write with query_only for a cleanly closed WAL copy (read-only where that is refused), read-only otherwise. */
function openQuiet(Database: typeof import('better-sqlite3'), path: string, clean: boolean): Db {
  if (clean) {
    try {
      const db = new Database(path, { fileMustExist: true, timeout: 0 });
      db.pragma('query_only = ON');
      return db;
    } catch {
      // A read-only file or directory: read-only it is (its side files may then stay).
    }
  }
  return new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
}

/** A family's live and marked rows; nulls when its table cannot be read as svc made it. */
function countRows(db: Db, state: SyncState): { rows: number | null; deleted: number | null } {
  // Only a table of the family's name is counted: a view of that name could run for ever (better-sqlite3 cannot be interrupted).
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? AND sql NOT LIKE 'CREATE VIRTUAL%'`).get(state.family);
  if (!table) return { rows: null, deleted: null };
  const count = (where: string): number | null => {
    try {
      return Number(db.prepare(`SELECT count(*) FROM ${ident(state.family)}${where}`).pluck().get());
    } catch {
      return null;
    }
  };
  if (!state.keepDeleted) return { rows: count(''), deleted: null };
  return { rows: count(` WHERE ${ident(DELETED_AT)} IS NULL`), deleted: count(` WHERE ${ident(DELETED_AT)} IS NOT NULL`) };
}

/** Refuses a database whose state table is not svc's (a table of that name with other columns); answers whether it has svc's. */
function checkStateTable(db: Db, path: string): boolean {
  const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(STATE_TABLE) as string[]).map(String);
  if (cols.length && cols.join(',') !== STATE_COLUMNS.join(',')) {
    throw new SvcError(`${shown(path)} has a table ${STATE_TABLE} that svc did not make; it is left as it is: give another --into file`);
  }
  return cols.length > 0;
}

/**
 * The DuckDB store (@duckdb/node-api, loaded only here, kept out of the
 * bundle). A page is appended as text into a temporary table, then cast and
 * merged into the family's table with the state in one transaction: money
 * becomes DECIMAL(38,10) from the plain decimal text (no exponent) of the
 * shortest text of the service's double, so 19.99 is 19.99 exactly; an amount
 * that type cannot hold exactly is refused before anything is written (cellOf).
 */
import { lstatSync, unlinkSync } from 'node:fs';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { SvcError } from '../errors.js';
import { shown } from '../util/shown.js';
import { DELETED_AT, ident, rowCells, type ColumnKind, type ColumnPlan } from './columns.js';
import { heldWhere, notADatabase, STATE_TABLE, type HeldCopy, type SyncState, type SyncStore, type Upserted } from './store.js';

const TYPES: Readonly<Record<ColumnKind, string>> = {
  smallint: 'SMALLINT',
  int: 'INTEGER',
  bigint: 'BIGINT',
  bool: 'BOOLEAN',
  double: 'DOUBLE',
  money: 'DECIMAL(38,10)',
  text: 'VARCHAR',
  json: 'VARCHAR',
  any: 'VARCHAR',
};

const STATE_COLUMNS = ['family', 'filter', 'fields', 'keep_deleted', 'columns', 'cursor', 'phase', 'after_id', 'svc_version', 'last_reconcile', 'runs', 'runs_since_reconcile', 'updated_at'];

const STATE_DDL = `CREATE TABLE IF NOT EXISTS ${STATE_TABLE} (
  family VARCHAR PRIMARY KEY, filter VARCHAR NOT NULL, fields VARCHAR NOT NULL, keep_deleted BOOLEAN NOT NULL,
  columns VARCHAR NOT NULL, cursor BIGINT, phase VARCHAR NOT NULL, after_id BIGINT NOT NULL, svc_version VARCHAR NOT NULL,
  last_reconcile BIGINT, runs BIGINT NOT NULL, runs_since_reconcile BIGINT NOT NULL, updated_at BIGINT NOT NULL)`;

/** A SQL literal for a state value (numbers, text, null, booleans): the state goes in as plain literals. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`);
    return String(v);
  }
  return `'${String(v).replace(/'/g, "''")}'`;
}

function stateSql(s: SyncState): string {
  const values = [s.family, s.filter, s.fields, s.keepDeleted, s.columns, s.cursor, s.phase, s.afterId, s.svcVersion, s.lastReconcile, s.runs, s.runsSinceReconcile, s.updatedAt];
  return `INSERT OR REPLACE INTO ${STATE_TABLE} (${STATE_COLUMNS.join(', ')}) VALUES (${values.map(literal).join(', ')})`;
}

function num(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

function stateOf(r: Record<string, unknown>): SyncState {
  return {
    family: String(r.family),
    filter: String(r.filter),
    fields: String(r.fields),
    keepDeleted: r.keep_deleted === true,
    columns: String(r.columns),
    cursor: num(r.cursor),
    phase: r.phase === 'ready' ? 'ready' : 'initial',
    afterId: Number(r.after_id),
    svcVersion: String(r.svc_version),
    lastReconcile: num(r.last_reconcile),
    runs: Number(r.runs),
    runsSinceReconcile: Number(r.runs_since_reconcile),
    updatedAt: Number(r.updated_at),
  };
}

/** Text of a cell for the all-text staging table (booleans as true/false, money as cellOf's plain decimal text, other numbers in their shortest round-trip form). */
function stagedText(kind: ColumnKind, cell: string | number | null): string | null {
  if (cell === null) return null;
  if (kind === 'bool') return cell === 1 ? 'true' : 'false';
  return typeof cell === 'number' ? String(cell) : cell;
}

/** A file of 0 bytes (made with touch, or by a tool that reserves the name): a new database to DuckDB's eyes, which refuses it. */
function isEmptyFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.size === 0;
}

/** The state table's columns as the database has them (none: no such table). */
async function stateColumns(conn: DuckDBConnection): Promise<string[]> {
  const rows = (await conn.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = '${STATE_TABLE}' ORDER BY ordinal_position`)).getRowObjectsJS();
  return rows.map((r) => String(r.column_name));
}

function foreignStateTable(path: string): SvcError {
  return new SvcError(`${shown(path)} has a table ${STATE_TABLE} that svc did not make; it is left as it is: give another --into file`);
}

/**
 * What a copy holds, read with the database opened read-only: nothing is
 * made or changed. DuckDB lets one process write a file, so a sync running
 * meanwhile makes this exit 1 naming the lock (inUse).
 */
export async function readDuckDbCopy(path: string): Promise<HeldCopy[]> {
  // An empty file is a new database to sync (see openDuckDb): it holds nothing yet.
  if (isEmptyFile(path)) return [];
  const { DuckDBInstance } = await import('@duckdb/node-api');
  let instance: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  try {
    instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY', autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    conn = await instance.connect();
    const cols = await stateColumns(conn);
    if (cols.length && cols.join(',') !== STATE_COLUMNS.join(',')) throw foreignStateTable(path);
    const states = cols.length ? (await conn.runAndReadAll(`SELECT * FROM ${STATE_TABLE} ORDER BY family`)).getRowObjectsJS().map((r) => stateOf(r as Record<string, unknown>)) : [];
    const held: HeldCopy[] = [];
    for (const state of states) held.push({ state, ...(await countRows(conn, state)) });
    return held;
  } catch (err) {
    if (err instanceof SvcError) throw err;
    throw notADatabase(path, 'DuckDB', err);
  } finally {
    conn?.closeSync();
    instance?.closeSync();
  }
}

/** A family's live and marked rows; nulls when its table cannot be read as svc made it. */
async function countRows(conn: DuckDBConnection, state: SyncState): Promise<{ rows: number | null; deleted: number | null }> {
  // Only a table of the family's name is counted: a view of that name could run for ever.
  const table = await conn.runAndReadAll(`SELECT 1 FROM information_schema.tables WHERE table_schema = 'main' AND table_name = ${literal(state.family)} AND table_type = 'BASE TABLE'`);
  if (table.getRowObjectsJS().length === 0) return { rows: null, deleted: null };
  const count = async (where: string): Promise<number | null> => {
    try {
      return Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM ${ident(state.family)}${where}`)).getRowObjectsJS()[0]?.n ?? 0);
    } catch {
      return null;
    }
  };
  if (!state.keepDeleted) return { rows: await count(''), deleted: null };
  return { rows: await count(` WHERE ${ident(DELETED_AT)} IS NULL`), deleted: await count(` WHERE ${ident(DELETED_AT)} IS NOT NULL`) };
}

export async function openDuckDb(path: string): Promise<SyncStore> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let cols: string[];
  try {
    // An empty file (made with touch, or by a tool that reserves the name) is a new database, as it is to SQLite;
    // DuckDB refuses one, so it goes first: it holds nothing to lose.
    if (isEmptyFile(path)) unlinkSync(path);
    // Never fetch or load an extension: DuckDB would download one to read, say, a SQLite file given as .duckdb.
    instance = await DuckDBInstance.create(path, { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    conn = await instance.connect();
    cols = await stateColumns(conn);
    if (cols.length && cols.join(',') !== STATE_COLUMNS.join(',')) throw foreignStateTable(path);
  } catch (err) {
    if (err instanceof SvcError) throw err;
    throw notADatabase(path, 'DuckDB', err);
  }
  const c = conn;
  // The state table is made by the first write: a file refused before it (a table of the family's name that svc did
  // not make) is left as it was.
  let hasState = cols.length > 0;
  const forWrites = async (): Promise<void> => {
    if (hasState) return;
    await c.run(STATE_DDL);
    hasState = true;
  };
  const all = async (sql: string): Promise<Record<string, unknown>[]> => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  /** Runs statements in one transaction; rolled back on any error. */
  const transaction = async (work: () => Promise<void>): Promise<void> => {
    await c.run('BEGIN TRANSACTION');
    try {
      await work();
      await c.run('COMMIT');
    } catch (err) {
      await c.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  };
  const staged = new Set<string>();
  /** The temporary all-text table a family's pages are appended to, made once per run. */
  const stage = async (family: string, columns: readonly ColumnPlan[]): Promise<string> => {
    const name = `svc_stage_${family}`;
    if (!staged.has(name)) {
      await c.run(`CREATE OR REPLACE TEMP TABLE ${ident(name)} (${columns.map((col) => `${ident(col.name)} VARCHAR`).join(', ')})`);
      staged.add(name);
    }
    return name;
  };
  const store: SyncStore = {
    kind: 'duckdb',
    path,
    async readState(family) {
      if (!hasState) return undefined;
      const rows = await all(`SELECT * FROM ${STATE_TABLE} WHERE family = ${literal(family)}`);
      return rows[0] ? stateOf(rows[0]) : undefined;
    },
    async hasTable(name) {
      return (await all(`SELECT 1 FROM information_schema.tables WHERE table_schema = 'main' AND lower(table_name) = lower(${literal(name)})`)).length > 0;
    },
    async create(state, columns, drop) {
      await forWrites();
      const table = ident(state.family);
      const keep = state.keepDeleted ? `, ${ident(DELETED_AT)} BIGINT` : '';
      const defs = columns.map((col) => `${ident(col.name)} ${TYPES[col.kind]}${col.name === 'ID' ? ' PRIMARY KEY' : ''}`).join(', ');
      await transaction(async () => {
        if (drop) await c.run(`DROP TABLE IF EXISTS ${table}`);
        await c.run(`CREATE TABLE ${table} (${defs}${keep})`);
        await c.run(stateSql(state));
      });
      staged.delete(`svc_stage_${state.family}`);
    },
    async upsert(family, columns, rows, state, fresh) {
      await forWrites();
      const name = await stage(family, columns);
      await c.run(`DELETE FROM ${ident(name)}`);
      // Every value checked before any is appended: one that does not fit its column stops the run, nothing half-staged.
      const cellRows = rows.map((row) => rowCells(columns, row, true));
      const appender = await c.createAppender(name, 'main', 'temp');
      for (const cells of cellRows) {
        columns.forEach((col, i) => {
          const text = stagedText(col.kind, cells[i] ?? null);
          if (text === null) appender.appendNull();
          else appender.appendVarchar(text);
        });
        appender.endRow();
      }
      appender.closeSync();
      const keepDeleted = state?.keepDeleted ?? (await store.readState(family))?.keepDeleted ?? false;
      const table = ident(family);
      const cast = columns.map((col) => `CAST(s.${ident(col.name)} AS ${TYPES[col.kind]}) AS ${ident(col.name)}`).join(', ');
      const names = columns.map((col) => ident(col.name));
      const done: Upserted = { inserted: 0, updated: 0 };
      await transaction(async () => {
        const typed = `(SELECT ${cast} FROM ${ident(name)} s)`;
        if (!fresh) {
          const differs = [...names.slice(1).map((n) => `n.${n} IS DISTINCT FROM t.${n}`), ...(keepDeleted ? [`t.${ident(DELETED_AT)} IS NOT NULL`] : [])];
          const counts = await all(
            `SELECT count(*) FILTER (WHERE t.ID IS NULL) AS inserted, count(*) FILTER (WHERE t.ID IS NOT NULL AND (${differs.join(' OR ') || 'FALSE'})) AS updated FROM ${typed} n LEFT JOIN ${table} t ON t.ID = n.ID`,
          );
          done.inserted = Number(counts[0]?.inserted ?? 0);
          done.updated = Number(counts[0]?.updated ?? 0);
        } else done.inserted = rows.length;
        const sets = [...names.slice(1).map((n) => `${n} = excluded.${n}`), ...(keepDeleted ? [`${ident(DELETED_AT)} = NULL`] : [])];
        // A first pass writes IDs above every one held (its progress is saved with its data): nothing to merge.
        const conflict = fresh ? '' : ` ON CONFLICT (ID) ${sets.length ? `DO UPDATE SET ${sets.join(', ')}` : 'DO NOTHING'}`;
        await c.run(`INSERT INTO ${table} (${names.join(', ')}) SELECT * FROM ${typed}${conflict}`);
        if (state) await c.run(stateSql(state));
      });
      return done;
    },
    async remove(family, ids, deletedAt) {
      await forWrites();
      if (ids.length === 0) return 0;
      const list = ids.map((id) => literal(id)).join(', ');
      const table = ident(family);
      let n = 0;
      await transaction(async () => {
        const where = `ID IN (${list})${deletedAt === undefined ? '' : ` AND ${ident(DELETED_AT)} IS NULL`}`;
        n = Number((await all(`SELECT count(*) AS n FROM ${table} WHERE ${where}`))[0]?.n ?? 0);
        if (deletedAt === undefined) await c.run(`DELETE FROM ${table} WHERE ${where}`);
        else await c.run(`UPDATE ${table} SET ${ident(DELETED_AT)} = ${literal(deletedAt)} WHERE ${where}`);
      });
      return n;
    },
    async heldIds(family, after, upTo, keepDeleted) {
      const rows = await all(`SELECT ID FROM ${ident(family)}${heldWhere(after, upTo, keepDeleted, literal)} ORDER BY ID`);
      return rows.map((r) => Number(r.ID));
    },
    async indexIds() {
      // DuckDB keeps the primary key's index and counts from its columns: nothing to add.
    },
    async countHeld(family, after, upTo, keepDeleted) {
      const rows = await all(`SELECT count(*) AS n FROM ${ident(family)}${heldWhere(after, upTo, keepDeleted, literal)}`);
      return Number(rows[0]?.n ?? 0);
    },
    async maxHeld(family, keepDeleted) {
      const v = (await all(`SELECT max(ID) AS m FROM ${ident(family)}${heldWhere(0, null, keepDeleted, literal)}`))[0]?.m;
      return v === null || v === undefined ? undefined : Number(v);
    },
    async saveState(state) {
      await forWrites();
      await c.run(stateSql(state));
    },
    async close() {
      c.closeSync();
      instance.closeSync();
    },
  };
  return store;
}

/**
 * What sync needs of a database: the state of each family's copy and its
 * table, written in transactions that carry the state with the data it
 * describes. SQLite (`.sqlite`, `.db`) and DuckDB (`.duckdb`) implement it;
 * each engine's library is loaded only when a target of its kind is opened (open.ts).
 */
import { extname } from 'node:path';
import { SvcError, UsageError } from '../errors.js';
import type { Row } from '../output/view.js';
import { DELETED_AT, ident, type ColumnPlan } from './columns.js';
import { shown } from '../util/shown.js';

/** The table svc keeps its state in, beside the families' tables. */
export const STATE_TABLE = '_svc_sync';

/** The prefix of the index svc keeps of a family's IDs (SQLite), followed by the family's name. */
export const ID_INDEX = '_svc_ids_';

/** Where a family's copy stands. */
export interface SyncState {
  readonly family: string;
  /** The filter flags as given (JSON of RememberedFilter). */
  readonly filter: string;
  /** --fields as given ('' for every field). */
  readonly fields: string;
  readonly keepDeleted: boolean;
  /** The table's columns (JSON of ColumnPlan[]). */
  readonly columns: string;
  /**
   * The highest lastmodified the service had when the last complete pass
   * began (Unix seconds); the next pass asks for lastmodified >= cursor - lag.
   * Null when the family had no record then.
   */
  readonly cursor: number | null;
  /** 'initial': the first pass has copied the records up to afterId; 'ready': the copy is whole. */
  readonly phase: 'initial' | 'ready';
  readonly afterId: number;
  readonly svcVersion: string;
  /** When the IDs were last compared (Unix seconds), or null. */
  readonly lastReconcile: number | null;
  /** Complete runs. */
  readonly runs: number;
  /** Complete runs since the IDs were last compared. */
  readonly runsSinceReconcile: number;
  /** When the state last changed (Unix seconds). */
  readonly updatedAt: number;
}

/** A family a copy holds, as read without writing (`--status`, and `svc sync` without families). */
export interface HeldCopy {
  readonly state: SyncState;
  /** Live rows in its table; null when the table cannot be counted (dropped or changed by hand). */
  readonly rows: number | null;
  /** Rows marked deleted (--keep-deleted); null without --keep-deleted or when not countable. */
  readonly deleted: number | null;
}

/** What an upsert did: records new to the copy, and records whose values changed. */
export interface Upserted {
  inserted: number;
  updated: number;
}

export interface SyncStore {
  readonly kind: 'sqlite' | 'duckdb';
  readonly path: string;
  readState(family: string): Promise<SyncState | undefined>;
  /** Whether the database has a table (or view) of this name, ignoring case. */
  hasTable(name: string): Promise<boolean>;
  /** One transaction: drops the family's table when asked, creates it afresh and saves the state. */
  create(state: SyncState, columns: readonly ColumnPlan[], drop: boolean): Promise<void>;
  /**
   * One transaction: inserts or updates the records (by ID; a record marked
   * deleted is live again) and, when given, saves the state. `fresh`: the IDs
   * are known to be new (the first pass), so nothing is compared.
   */
  upsert(family: string, columns: readonly ColumnPlan[], rows: readonly Row[], state: SyncState | undefined, fresh: boolean): Promise<Upserted>;
  /** One transaction: removes the records (or marks them deleted at `deletedAt`); answers how many it removed or marked. */
  remove(family: string, ids: readonly number[], deletedAt: number | undefined): Promise<number>;
  /** Makes what comparing IDs reads fast, once the first pass has copied every record (SQLite: an index of the IDs). */
  indexIds(family: string, keepDeleted: boolean): Promise<void>;
  /** The live IDs held in (after, upTo], in order (upTo null: no bound). */
  heldIds(family: string, after: number, upTo: number | null, keepDeleted: boolean): Promise<number[]>;
  /** How many live IDs are held in (after, upTo]; (0, null] is every live record, whatever its ID. */
  countHeld(family: string, after: number, upTo: number | null, keepDeleted: boolean): Promise<number>;
  /** The highest live ID held, or undefined. */
  maxHeld(family: string, keepDeleted: boolean): Promise<number | undefined>;
  /** Saves the state alone (the data it describes is already written). */
  saveState(state: SyncState): Promise<void>;
  close(): Promise<void>;
}

/**
 * The WHERE clause (with its leading space, or nothing) of the live rows held
 * in (after, upTo]: no ID condition for the whole range, (0, null], which
 * every ID held is in (a bare count reads an index's size; see reconcileIds).
 * `value` writes a number into the SQL: a literal, or a `?` with its
 * parameter kept by the caller.
 */
export function heldWhere(after: number, upTo: number | null, keepDeleted: boolean, value: (n: number) => string): string {
  const conds = [...(after === 0 && upTo === null ? [] : [`ID > ${value(after)}`]), ...(upTo === null ? [] : [`ID <= ${value(upTo)}`]), ...(keepDeleted ? [`${ident(DELETED_AT)} IS NULL`] : [])];
  return conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
}

/** The engines by extension. */
const ENGINES: Readonly<Record<string, 'sqlite' | 'duckdb'>> = { '.sqlite': 'sqlite', '.sqlite3': 'sqlite', '.db': 'sqlite', '.duckdb': 'duckdb' };

/** The engine a target's name asks for; a usage error naming the extensions taken otherwise. */
export function engineOf(path: string): 'sqlite' | 'duckdb' {
  const engine = ENGINES[extname(path).toLowerCase()];
  if (!engine) throw new UsageError(`--into ${shown(path)}: name a .sqlite, .sqlite3 or .db file (SQLite) or a .duckdb file (DuckDB)`);
  return engine;
}

/** The first line of an engine's error, short, without control characters. */
function firstLine(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return shown(text, 300);
}

/** Another program holds the database (SQLite's busy lock, DuckDB's one-process lock): exit 1. */
export class FileInUseError extends SvcError {}

/** The target is held by another program (a write transaction in SQLite, DuckDB's file lock): exit 1 saying so; undefined for any other error. */
export function inUse(path: string, err: unknown): SvcError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED' && !/database is locked|could not set lock on file/i.test(message)) return undefined;
  return new FileInUseError(`${path} is in use by another program (${firstLine(err)}); close it or wait for its work to end, then run the sync again`);
}

/**
 * An error of the database engine while a family's copy is written (its table
 * changed by hand, a trigger, a disk full): exit 1, one line naming the file,
 * the family, the engine's reason and --reset; undefined for any other error.
 */
export function engineFailure(path: string, family: string, engine: 'sqlite' | 'duckdb', err: unknown): SvcError | undefined {
  if (!(err instanceof Error) || err instanceof SvcError) return undefined;
  const code = (err as { code?: unknown }).code;
  const sqlite = err.name === 'SqliteError' || (typeof code === 'string' && code.startsWith('SQLITE_'));
  // DuckDB's errors are plain Errors whose message starts with their kind ("Catalog Error: …", "Constraint Error: …").
  const duckdb = engine === 'duckdb' && err.constructor === Error && /^[A-Z][A-Za-z ]{1,40} Error: /.test(err.message);
  if (!sqlite && !duckdb) return undefined;
  return new SvcError(
    `${path}: the ${family} copy could not be written (${firstLine(err)}); it holds every page written before. If its table was changed by hand, add --reset to rebuild it`,
  );
}

/** A database the engine cannot read: refused, never overwritten. */
export function notADatabase(path: string, engine: string, err: unknown): SvcError {
  const busy = inUse(path, err);
  if (busy) return busy;
  const why = firstLine(err);
  return new SvcError(`${shown(path)} is not a ${engine} database svc can use (${why}); it is left as it is: give another --into file`);
}

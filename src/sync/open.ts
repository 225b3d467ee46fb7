/** Opening a target's database: the engine its extension names, its library loaded only now. */
import { engineOf, type HeldCopy, type SyncStore } from './store.js';

/** Opens (creating when missing) the database at a checked path. */
export async function openStore(path: string): Promise<SyncStore> {
  if (engineOf(path) === 'duckdb') return (await import('./duckdb-store.js')).openDuckDb(path);
  return (await import('./sqlite-store.js')).openSqlite(path);
}

/** What the database at a checked, existing path holds, read without writing anything. */
export async function readHeld(path: string): Promise<HeldCopy[]> {
  if (engineOf(path) === 'duckdb') return (await import('./duckdb-store.js')).readDuckDbCopy(path);
  return (await import('./sqlite-store.js')).readSqliteCopy(path);
}

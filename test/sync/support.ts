/**
 * Shared by the sync tests: reading a copy back with typed values (SQLite or
 * DuckDB), what `query --all` of the same filter and fields says the copy
 * must hold (each value stored as its column stores it), changes made on the
 * sandbox through its HTTP API, and accounts inserted in bulk.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { cellOf, type ColumnPlan } from '../../src/sync/columns.js';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import type { CliRun } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-sync-'));
}

type Value = string | number | null;

/** A value as the comparison sees it: numbers whatever their engine type, booleans as 0/1. */
function plain(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'string') return v;
  // DuckDB decimals and others: their text.
  const n = Number(String(v));
  return Number.isFinite(n) ? n : String(v);
}

/** The state row of a family and the rows of its table, ID order, typed values. */
export async function readCopy(path: string, family: string): Promise<{ columns: ColumnPlan[]; rows: Record<string, Value>[]; state: Record<string, unknown> }> {
  if (path.endsWith('.duckdb')) {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    try {
      const state = (await conn.runAndReadAll(`SELECT * FROM _svc_sync WHERE family = '${family}'`)).getRowObjectsJS()[0] as Record<string, unknown>;
      const reader = await conn.runAndReadAll(`SELECT * FROM "${family}" ORDER BY ID`);
      const names = reader.columnNames();
      return { columns: JSON.parse(String(state.columns)) as ColumnPlan[], rows: reader.getRowsJS().map((r) => typedRow(names, r)), state };
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  }
  const db = new Database(path, { readonly: true });
  try {
    const state = db.prepare('SELECT * FROM _svc_sync WHERE family = ?').get(family) as Record<string, unknown>;
    // Raw rows with the names beside them: an engine's row objects would take a column named __proto__ as their prototype.
    const stmt = db.prepare(`SELECT * FROM "${family}" ORDER BY ID`).raw();
    const names = stmt.columns().map((c) => c.name);
    return { columns: JSON.parse(String(state.columns)) as ColumnPlan[], rows: (stmt.all() as unknown[][]).map((r) => typedRow(names, r)), state };
  } finally {
    db.close();
  }
}

function typedRow(names: readonly string[], values: readonly unknown[]): Record<string, Value> {
  const out: Record<string, Value> = {};
  names.forEach((k, i) => Object.defineProperty(out, k, { value: plain(values[i]), enumerable: true, writable: true, configurable: true }));
  return out;
}

/** What the copy must hold: the records `query --all -o json` printed, each value stored as its column stores it. */
export function expectedRows(query: CliRun, columns: readonly ColumnPlan[], extra: Record<string, Value> = {}): Record<string, Value>[] {
  expect(query.code, query.stderr).toBe(0);
  const records = JSON.parse(query.stdout) as Record<string, unknown>[];
  return records
    .map((rec) => {
      const out: Record<string, Value> = {};
      for (const c of columns) {
        const v = cellOf(c.kind, Object.hasOwn(rec, c.name) ? rec[c.name] : null);
        Object.defineProperty(out, c.name, { value: typeof v === 'number' && c.kind === 'money' ? Number(String(v)) : v, enumerable: true, writable: true, configurable: true });
      }
      for (const [k, v] of Object.entries(extra)) out[k] = v;
      return out;
    })
    .sort((a, b) => Number(a.ID) - Number(b.ID));
}

/** Creates a record through the sandbox's API; answers its ID. */
export async function create(s: TestSandbox, family: string, body: Record<string, unknown>): Promise<number> {
  const r = await s.call('PUT', `api/v1/${family}`, { json: body });
  expect(r.status, r.text).toBeLessThan(300);
  const v = r.json<unknown>();
  return typeof v === 'number' ? v : Number((v as { ID: number }).ID);
}

export async function update(s: TestSandbox, family: string, id: number, body: Record<string, unknown>): Promise<void> {
  const r = await s.call('PATCH', `api/v1/${family}/${id}`, { json: body });
  expect(r.status, r.text).toBeLessThan(300);
}

export async function remove(s: TestSandbox, family: string, id: number): Promise<void> {
  const r = await s.call('DELETE', `api/v1/${family}/${id}`);
  expect(r.status, r.text).toBeLessThan(300);
}

/** Inserts `n` accounts straight into the sandbox database, modified at `lastmodified` (Unix seconds); answers their IDs. */
export function insertAccounts(s: TestSandbox, n: number, lastmodified: number, prefix = 'Bulk'): number[] {
  const insert = prepareInsert(s.sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'type', 'description', 'creationdate', 'lastmodified']);
  const ids: number[] = [];
  s.sandbox.db.transaction(() => {
    for (let i = 0; i < n; i++) ids.push(insert([`${prefix} ${i} "q", ü`, 'EUR', i % 4, i % 5 === 0 ? `line\nbreak ${i}` : "", lastmodified - 86400, lastmodified]));
  })();
  return ids;
}

/** The query bodies the sandbox received for a family, oldest first. */
export function queryBodies(s: TestSandbox, family: string): Record<string, unknown>[] {
  return s.sandbox.hooks.requests.filter((r) => r.method === 'POST' && r.url.endsWith(`/api/v1/${family}`)).map((r) => r.body as Record<string, unknown>);
}

/** Whether a body asks for IDs only. */
export function idsOnly(body: Record<string, unknown>): boolean {
  const f = body.fields as Record<string, string> | undefined;
  return !!f && Object.keys(f).length === 1 && Object.values(f)[0] === 'ID';
}

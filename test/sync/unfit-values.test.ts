/**
 * Values a sync copy must refuse rather than change: money DuckDB's
 * DECIMAL(38,10) cannot hold exactly (more than 10 decimal places, 10^28 and
 * above) and flags outside 0/1; what SQLite (REAL, the service's double)
 * holds instead; and what `svc sync` with several families says and prints
 * when one of them fails (the family, the `svc <family> sync` that leaves
 * the column out, and the summaries of the families already committed).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { cellOf, UnfitValue, rowCells, type ColumnPlan } from '../../src/sync/columns.js';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from './support.js';

const { sandbox, run } = sandboxCli();
const db = () => sandbox().sandbox.db;

describe('cellOf', () => {
  it('DuckDB money: the plain decimal text of an amount DECIMAL(38,10) holds exactly; anything finer or larger refused', () => {
    expect([19.99, 1e-10, -2.5, 1e27, 0, -0, 123456789.125, 9.999999999999997e27].map((v) => cellOf('money', v, true))).toEqual([
      '19.99',
      '0.0000000001',
      '-2.5',
      '1000000000000000000000000000',
      '0',
      '0',
      '123456789.125',
      '9999999999999997000000000000',
    ]);
    for (const v of [0.00001234567, 1e-11, 5e-11, 1e28, -1e30, '19.99']) expect(() => cellOf('money', v, true), String(v)).toThrow(/not an amount below 10\^28 with at most 10 decimal places/);
  });

  it('SQLite money: the service\'s double itself (REAL holds it bit for bit), however fine', () => {
    expect([0.00001234567, 1e-11, 1e30].map((v) => cellOf('money', v))).toEqual([0.00001234567, 1e-11, 1e30]);
  });

  it('a flag is 0 or 1 (true or false); anything else is refused, as Parquet refuses it', () => {
    expect([0, 1, true, false, null].map((v) => cellOf('bool', v))).toEqual([0, 1, 1, 0, null]);
    for (const v of [2, -1, 0.5, '1', 'true', 'yes']) expect(() => cellOf('bool', v), String(v)).toThrow(/not 0 or 1/);
  });

  it('the line names the record, the column, the value and the ways out', () => {
    const columns: ColumnPlan[] = [
      { name: 'ID', path: 'ID', kind: 'int' },
      { name: 'price', path: 'sellingprice', kind: 'money' },
      { name: 'locked', path: 'locked', kind: 'bool' },
    ];
    const refusal = (row: Record<string, unknown>, widths: boolean): string => {
      try {
        rowCells(columns, row, widths);
      } catch (err) {
        expect(err).toBeInstanceOf(UnfitValue);
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refusal({ ID: 7, price: 5e-11, locked: 0 }, true)).toBe(
      "record 7: price is 5e-11, not an amount below 10^28 with at most 10 decimal places, which DuckDB's DECIMAL(38,10) holds exactly; sync into a .sqlite file, leave it out with --fields (and --reset), or export it as csv or ndjson",
    );
    expect(refusal({ ID: 7, price: 1, locked: 2 }, false)).toBe('record 7: locked is 2, not 0 or 1 as the catalogue says; leave it out with --fields (and --reset), or export it as csv or ndjson');
  });
});

async function duckRows(file: string, sql: string): Promise<Record<string, unknown>[]> {
  const inst = await DuckDBInstance.create(file);
  const conn = await inst.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

describe('money finer than DECIMAL(38,10) through the CLI', () => {
  it('DuckDB refuses it in one line (exit 1, nothing written); SQLite holds the service\'s double; what DuckDB takes it holds exactly', async () => {
    const ids: number[] = [];
    for (const [i, p] of [0.1, 1e-10, 0.00001234567].entries()) {
      const r = await run(['items', 'create', `name=Fine ${i}`, `sellingprice=${p}`, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      ids.push((JSON.parse(r.stdout) as { ID: number }).ID);
    }
    const args = (file: string, upTo: number): string[] => ['items', 'sync', '--into', file, '--fields', 'ID,sellingprice', '--filter', `ID >= ${ids[0]} and ID <= ${upTo}`];
    const duck = join(tempDir(), 'fine.duckdb');
    const refused = await run(args(duck, ids[2] as number));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trimEnd().split('\n').filter((l) => !/changed in the future/.test(l))).toEqual([
      `svc: record ${ids[2]}: sellingprice is 0.00001234567, not an amount below 10^28 with at most 10 decimal places, which DuckDB's DECIMAL(38,10) holds exactly; sync into a .sqlite file, leave it out with --fields (and --reset), or export it as csv or ndjson`,
    ]);
    expect(await duckRows(duck, 'SELECT count(*)::INTEGER AS n FROM items')).toEqual([{ n: 0 }]);

    const kept = join(tempDir(), 'kept.duckdb');
    expect((await run(args(kept, ids[1] as number))).code).toBe(0);
    expect(await duckRows(kept, 'SELECT sellingprice::VARCHAR AS p FROM items ORDER BY ID')).toEqual([{ p: '0.1000000000' }, { p: '0.0000000001' }]);

    const lite = join(tempDir(), 'fine.sqlite');
    const r = await run(args(lite, ids[2] as number));
    expect(r.code, r.stderr).toBe(0);
    const file = new Database(lite, { readonly: true });
    try {
      expect(file.prepare('SELECT sellingprice FROM items ORDER BY ID').pluck().all()).toEqual([0.1, 1e-10, 0.00001234567]);
    } finally {
      file.close();
    }
  });
});

describe('svc sync with several families, one failing', () => {
  it('names the family and the svc <family> sync that leaves the column out (its remembered filter and fields); the families done are printed', async () => {
    const id = (db().prepare('SELECT min(ID) AS id FROM "demo/payments"').get() as { id: number }).id;
    const was = (db().prepare('SELECT amount FROM "demo/payments" WHERE ID = ?').get(id) as { amount: number }).amount;
    const file = join(tempDir(), "it's.duckdb");
    const setUp = await run(['payments', 'sync', '--into', file, '--filter', `ID <= ${id + 5}`, '--fields', 'ID,amount,when=lastmodified', '--keep-deleted']);
    expect(setUp.code, setUp.stderr).toBe(0);
    db().prepare('UPDATE "demo/payments" SET amount = 1e30, lastmodified = (SELECT max(lastmodified) FROM "demo/payments") + 1 WHERE ID = ?').run(id);
    try {
      const ndjson = await run(['sync', '--into', file, 'groups', 'payments', 'users', '-o', 'ndjson']);
      expect(ndjson.code).toBe(1);
      expect(ndjson.stderr).toBe(
        `svc: payments: record ${id}: amount is 1e+30, not an amount below 10^28 with at most 10 decimal places, which DuckDB's DECIMAL(38,10) holds exactly; sync into a .sqlite file, leave it out with svc payments sync --into '${file.replace(/'/g, "'\\''")}' --reset --fields when=lastmodified --filter 'ID <= ${id + 5}' --keep-deleted, or export it as csv or ndjson\n`,
      );
      // groups was committed before payments failed: its line is in the log; users never ran.
      const lines = ndjson.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { family: string });
      expect(lines.map((l) => l.family)).toEqual(['groups']);

      const json = await run(['sync', '--into', file, 'groups', 'payments', '-o', 'json']);
      expect(json.code).toBe(1);
      expect((JSON.parse(json.stdout) as { family: string }[]).map((s) => s.family)).toEqual(['groups']);

      const first = await run(['sync', '--into', file, 'payments', 'groups', '-o', 'json']);
      expect(first.code).toBe(1);
      expect(first.stdout).toBe('');
    } finally {
      db().prepare('UPDATE "demo/payments" SET amount = ? WHERE ID = ?').run(was, id);
    }
  });

  it('-o ndjson writes each family\'s line as it is committed; a run that succeeds prints one line a family', async () => {
    const file = join(tempDir(), 'ok.sqlite');
    const r = await run(['sync', '--into', file, 'groups', 'users', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { family: string }).family)).toEqual(['groups', 'users']);
  });
});

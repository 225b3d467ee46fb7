/**
 * A record whose value does not fit its column's catalogue type (an int32
 * field holding 2^53, an int64 field at 2^63, which JSON carries as a double
 * beyond any integer column): sync stops with exit 1 and one line naming the
 * record, the column and the fix (as export --format parquet does), never
 * "unexpected error" with the engine's SQL; the copy stays as it was.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { readCopy, tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

describe('sync: a value that does not fit its column', () => {
  it.each([
    ['sqlite', 'creator', '9007199254740993'],
    ['duckdb', 'creator', '9007199254740993'],
    ['sqlite', 'creationdate', '9223372036854775807'],
    ['duckdb', 'creationdate', '9223372036854775807'],
  ])('%s, %s = %s: exit 1, one line naming the record and --fields, the copy at its previous state', async (engine, column, value) => {
    const file = join(tempDir(), `copy.${engine}`);
    const first = await run(['accounts', 'sync', '--into', file]);
    expect(first.code, first.stderr).toBe(0);
    const before = await readCopy(file, 'accounts');
    const db = sandbox().sandbox.db;
    const id = (db.prepare('SELECT min(ID) AS id FROM "demo/accounts"').get() as { id: number }).id;
    const was = (db.prepare(`SELECT ${column} AS v FROM "demo/accounts" WHERE ID = ?`).get(id) as { v: unknown }).v;
    db.prepare(`UPDATE "demo/accounts" SET ${column} = ${value}, lastmodified = (SELECT max(lastmodified) FROM "demo/accounts") + 1 WHERE ID = ?`).run(id);
    const r = await run(['accounts', 'sync', '--into', file]);
    db.prepare(`UPDATE "demo/accounts" SET ${column} = ? WHERE ID = ?`).run(was, id);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).toContain(`record ${id}: ${column} is`);
    expect(r.stderr).toContain('--fields');
    const after = await readCopy(file, 'accounts');
    expect(after.rows).toEqual(before.rows);
    expect(after.state.cursor).toEqual(before.state.cursor);
  });

  it.each(['sqlite', 'duckdb'])('%s, at --concurrency 4 with the changed pages after the first in flight: the same one line, and the run ends there', async (engine) => {
    const file = join(tempDir(), `c4.${engine}`);
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const before = await readCopy(file, 'accounts');
    const db = sandbox().sandbox.db;
    const ids = (db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 12').all() as { ID: number }[]).map((r) => r.ID);
    const was = (db.prepare('SELECT creator AS v FROM "demo/accounts" WHERE ID = ?').get(ids[0]) as { v: unknown }).v;
    const stamp = (db.prepare('SELECT max(lastmodified) AS m FROM "demo/accounts"').get() as { m: number }).m + 1;
    db.prepare(`UPDATE "demo/accounts" SET lastmodified = ?, description = 'touched' WHERE ID IN (${ids.join(', ')})`).run(stamp);
    db.prepare('UPDATE "demo/accounts" SET creator = 9007199254740993 WHERE ID = ?').run(ids[0]);
    try {
      const r = await run(['accounts', 'sync', '--into', file, '--concurrency', '4', '--page-size', '3']);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`record ${ids[0]}: creator is`);
      expect((await readCopy(file, 'accounts')).rows).toEqual(before.rows);
    } finally {
      db.prepare('UPDATE "demo/accounts" SET creator = ? WHERE ID = ?').run(was, ids[0]);
    }
  });

  it('IDs near 2^53: SQLite holds them (first pass at concurrency 4, a deletion found); DuckDB (INTEGER IDs for accounts) refuses in one line', async () => {
    const db = sandbox().sandbox.db;
    const big = [4503599627370496, 9007199254740990, 9007199254740991];
    for (const id of big) db.prepare(`INSERT INTO "demo/accounts" (ID, lastname, currency) VALUES (?, 'Big', 'EUR')`).run(id);
    try {
      const file = join(tempDir(), 'big.sqlite');
      const r = await run(['accounts', 'sync', '--into', file, '--concurrency', '4', '--page-size', '7']);
      expect(r.code, r.stderr).toBe(0);
      expect((await readCopy(file, 'accounts')).rows.slice(-3).map((x) => x.ID)).toEqual(big);
      db.prepare('DELETE FROM "demo/accounts" WHERE ID = ?').run(big[0]);
      const again = await run(['accounts', 'sync', '--into', file, '-o', 'json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ deleted: 1 });
      const duck = await run(['accounts', 'sync', '--into', join(tempDir(), 'big.duckdb')]);
      expect(duck.code).toBe(1);
      expect(duck.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(duck.stderr).toMatch(/record \d+: ID is \d+, not an integer from -2147483648 to 2147483647 as the catalogue says; sync into a \.sqlite file/);
    } finally {
      db.prepare(`DELETE FROM "demo/accounts" WHERE ID IN (${big.join(', ')})`).run();
    }
  });

  it('DuckDB, money beyond DECIMAL(38,10): exit 1, one line naming the record and the column; SQLite (REAL) holds it', async () => {
    const db = sandbox().sandbox.db;
    const id = (db.prepare('SELECT min(ID) AS id FROM "demo/items"').get() as { id: number }).id;
    const was = (db.prepare('SELECT sellingprice AS v FROM "demo/items" WHERE ID = ?').get(id) as { v: number }).v;
    db.prepare('UPDATE "demo/items" SET sellingprice = 1e30 WHERE ID = ?').run(id);
    try {
      const duck = await run(['items', 'sync', '--into', join(tempDir(), 'm.duckdb'), '--fields', 'ID,sellingprice']);
      expect(duck.code, duck.stderr).toBe(1);
      expect(duck.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(duck.stderr).toContain(`record ${id}: sellingprice is 1e+30, not an amount below 10^28`);
      expect(duck.stderr).not.toMatch(/--reset to rebuild|Conversion Error/);
      const lite = await run(['items', 'sync', '--into', join(tempDir(), 'm.sqlite'), '--fields', 'ID,sellingprice']);
      expect(lite.code, lite.stderr).toBe(0);
    } finally {
      db.prepare('UPDATE "demo/items" SET sellingprice = ? WHERE ID = ?').run(was, id);
    }
  });
});

/**
 * A copy changed by hand between runs (a column dropped, a trigger that
 * refuses updates, the table replaced by a view, the _svc_sync state's JSON
 * edited): the next sync stops with one line naming the file or the state
 * and --reset (exit 1, or 2 for the state), never "unexpected error"; and
 * --reset then rebuilds a copy equal to query --all.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { expectedRows, readCopy, tempDir, update } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

describe('sync into a copy changed by hand', () => {
  it.each([
    ['a column dropped', 'ALTER TABLE accounts DROP COLUMN description', 1],
    ['a trigger refusing updates', "CREATE TRIGGER t BEFORE UPDATE ON accounts BEGIN SELECT RAISE(ABORT, 'no updates'); END", 1],
    ['the saved columns not JSON', "UPDATE _svc_sync SET columns = 'garbage'", 2],
    ['the saved filter not JSON', "UPDATE _svc_sync SET filter = '{'", 2],
    ['the saved filter of the wrong shape', `UPDATE _svc_sync SET filter = '{"filter":"type = 1"}'`, 2],
  ])('%s: one line naming --reset, then --reset converges', async (_what, sql, code) => {
    const file = join(tempDir(), 'copy.sqlite');
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const db = new Database(file);
    db.exec(sql);
    db.close();
    const id = (sandbox().sandbox.db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 1').get() as { ID: number }).ID;
    await update(sandbox(), 'accounts', id, { lastname: `Edited ${Math.random()}` });
    const r = await run(['accounts', 'sync', '--into', file]);
    expect(r.code, r.stderr).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).toContain('--reset');
    const again = await run(['accounts', 'sync', '--into', file, '--reset']);
    expect(again.code, again.stderr).toBe(0);
    const copy = await readCopy(file, 'accounts');
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '-o', 'json']), copy.columns));
  });

  it('DuckDB, a column dropped: one line naming --reset, then --reset converges', async () => {
    const file = join(tempDir(), 'copy.duckdb');
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(file);
    const conn = await inst.connect();
    await conn.run('ALTER TABLE accounts DROP COLUMN description');
    conn.closeSync();
    inst.closeSync();
    const id = (sandbox().sandbox.db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 1').get() as { ID: number }).ID;
    await update(sandbox(), 'accounts', id, { lastname: `Edited ${Math.random()}` });
    const r = await run(['accounts', 'sync', '--into', file]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).toContain('--reset');
    const again = await run(['accounts', 'sync', '--into', file, '--reset']);
    expect(again.code, again.stderr).toBe(0);
    const copy = await readCopy(file, 'accounts');
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '-o', 'json']), copy.columns));
  });

  it('the table replaced by a view: one line on each run (svc does not drop a view it did not make)', async () => {
    const file = join(tempDir(), 'copy.sqlite');
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const db = new Database(file);
    db.exec('DROP TABLE accounts; CREATE VIEW accounts AS SELECT 1 AS ID');
    db.close();
    for (const extra of [[], ['--reset']]) {
      const r = await run(['accounts', 'sync', '--into', file, ...extra]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/unexpected error/);
    }
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT type FROM sqlite_master WHERE name = 'accounts'").get()).toEqual({ type: 'view' });
    check.close();
  });
});

/**
 * The ID index svc adds to a SQLite copy, `_svc_ids_<family>`, meets what the
 * user keeps in the same file: a table of that name, an index of that name
 * (another case) on another table. A --reset that turns --keep-deleted on
 * gets the index of (_deleted_at, ID). An older copy (4 KB pages, no index)
 * under --keep-deleted gets the index and finds a deletion, and a record
 * that comes back is live again.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { create, expectedRows, readCopy, tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();
const FIELDS = 'ID,lastname';

function indexes(file: string): { name: string; table: string; sql: string }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT name, tbl_name AS \"table\", sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string; table: string; sql: string }[];
  } finally {
    db.close();
  }
}

async function expectLiveEqualsService(file: string): Promise<void> {
  const copy = await readCopy(file, 'accounts');
  const live = copy.rows.filter((r) => !('_deleted_at' in r) || r._deleted_at === null).map(({ _deleted_at, ...r }) => r);
  expect(live).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', FIELDS, '-o', 'json']), copy.columns.filter((c) => c.name !== '_deleted_at')));
}

describe('the ID index of a SQLite copy and what else the file holds', () => {
  it('a table of the user\'s named _svc_ids_accounts: refused before anything is copied, or the copy made without the index; never a first pass that fails at its end on every run', async () => {
    const file = join(tempDir(), 'theirs.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE _svc_ids_accounts (note TEXT)');
    db.prepare('INSERT INTO _svc_ids_accounts VALUES (?)').run('mine');
    db.close();
    const args = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '-o', 'json'];
    const first = await run(args);
    const again = await run(args);
    const report = `first: exit ${first.code} ${first.stderr.trim()}; again: exit ${again.code} ${again.stderr.trim()}`;
    const mine = new Database(file, { readonly: true });
    expect(mine.prepare('SELECT note FROM _svc_ids_accounts').pluck().all()).toEqual(['mine']);
    mine.close();
    expect(first.stderr, report).not.toMatch(/unexpected error|already a table/);
    expect(first.stderr.trimEnd().split('\n').length, report).toBeLessThanOrEqual(1);
    // Either outcome is fine: a one-line refusal that leaves the file as it was, or a working copy.
    if (first.code !== 0) {
      expect(first.code, report).toBe(1);
      expect(first.stderr, report).toContain('_svc_ids_accounts');
      const left = new Database(file, { readonly: true });
      expect(left.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all(), report).toEqual(['_svc_ids_accounts']);
      left.close();
    } else {
      expect(again.code, report).toBe(0);
      await expectLiveEqualsService(file);
    }
  });

  it('an index of the user\'s named _SVC_IDS_ACCOUNTS on another table: the copy is right and a deletion is found', async () => {
    const s = sandbox();
    const file = join(tempDir(), 'their-index.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE notes (body TEXT)');
    db.exec('CREATE INDEX _SVC_IDS_ACCOUNTS ON notes (body)');
    db.close();
    const doomed = await create(s, 'accounts', { lastname: 'Index doomed', currency: 'EUR', type: 1 });
    const args = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '-o', 'json'];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID = ?`).run(doomed);
    const second = await run(args);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ deleted: 1 });
    await expectLiveEqualsService(file);
    expect(indexes(file).find((i) => i.name === '_SVC_IDS_ACCOUNTS')).toMatchObject({ table: 'notes' });
  });

  it('--reset turning --keep-deleted on rebuilds the index as (_deleted_at, ID); turning it off again, as (ID)', async () => {
    const s = sandbox();
    const file = join(tempDir(), 'reset.sqlite');
    const base = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '-o', 'json'];
    expect((await run(base)).code).toBe(0);
    const on = await run([...base, '--reset', '--keep-deleted']);
    expect(on.code, on.stderr).toBe(0);
    expect(indexes(file).map((i) => i.sql)).toEqual(['CREATE INDEX "_svc_ids_accounts" ON "accounts" ("_deleted_at", ID)']);
    const doomed = await create(s, 'accounts', { lastname: 'Reset doomed', currency: 'EUR', type: 1 });
    expect((await run(base)).code).toBe(0);
    s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID = ?`).run(doomed);
    const marked = await run(base);
    expect(JSON.parse(marked.stdout)).toMatchObject({ deleted: 1 });
    expect((await readCopy(file, 'accounts')).rows.find((r) => r.ID === doomed)?._deleted_at).toEqual(expect.any(Number));
    const off = await run([...base, '--reset']);
    expect(off.code, off.stderr).toBe(0);
    expect(indexes(file).map((i) => i.sql)).toEqual(['CREATE INDEX "_svc_ids_accounts" ON "accounts" (ID)']);
    await expectLiveEqualsService(file);
  });

  it('an older copy (4 KB pages, no index) under --keep-deleted: gets the index, marks a deletion, and a record that comes back is live again', async () => {
    const s = sandbox();
    const file = join(tempDir(), 'older.sqlite');
    const args = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '--keep-deleted', '--concurrency', '3', '--page-size', '7', '-o', 'json'];
    const back = await create(s, 'accounts', { lastname: 'Comes back', currency: 'EUR', type: 1 });
    expect((await run(args)).code).toBe(0);
    // As an older svc left it: 4 KB pages, no ID index.
    const db = new Database(file);
    db.exec('DROP INDEX "_svc_ids_accounts"');
    db.pragma('journal_mode = DELETE');
    db.pragma('page_size = 4096');
    db.exec('VACUUM');
    db.pragma('journal_mode = WAL');
    expect(db.pragma('page_size', { simple: true })).toBe(4096);
    db.close();
    const row = s.sandbox.db.prepare(`SELECT * FROM ${table('demo', 'accounts')} WHERE ID = ?`).get(back) as Record<string, unknown>;
    s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID = ?`).run(back);
    const gone = await run(args);
    expect(gone.code, gone.stderr).toBe(0);
    expect(JSON.parse(gone.stdout)).toMatchObject({ deleted: 1 });
    expect(indexes(file).map((i) => i.sql)).toEqual(['CREATE INDEX "_svc_ids_accounts" ON "accounts" ("_deleted_at", ID)']);
    expect((await readCopy(file, 'accounts')).rows.find((r) => r.ID === back)?._deleted_at).toEqual(expect.any(Number));
    // The record comes back (restored with its ID, stamped now).
    const cols = Object.keys(row);
    s.sandbox.db.prepare(`INSERT INTO ${table('demo', 'accounts')} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...cols.map((c) => (c === 'lastmodified' ? Math.floor(Date.now() / 1000) + 1 : row[c])));
    const live = await run(args);
    expect(live.code, live.stderr).toBe(0);
    expect((await readCopy(file, 'accounts')).rows.find((r) => r.ID === back)?._deleted_at).toBeNull();
    await expectLiveEqualsService(file);
    const after = new Database(file, { readonly: true });
    expect(after.pragma('page_size', { simple: true })).toBe(4096);
    after.close();
  });
});

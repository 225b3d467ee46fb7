/**
 * How svc lays out a SQLite copy for later runs: 2 KB pages in a new file
 * (an existing file keeps its own), and an index of the IDs, built once the
 * first pass is whole, that the ID comparison counts from. A copy without
 * the index (made by an older svc, or the index dropped by hand) gets it on
 * its next run and stays right; a deletion is still found through it, with
 * and without --keep-deleted.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { create, expectedRows, readCopy, tempDir } from './support.js';

const { sandbox, run } = sandboxCli();

function layout(file: string): { pageSize: number; indexes: string[] } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      pageSize: Number(db.pragma('page_size', { simple: true })),
      indexes: (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all() as string[]).map(String),
    };
  } finally {
    db.close();
  }
}

describe('a SQLite copy', () => {
  it.each([false, true])('keep-deleted %s: 2 KB pages, the ID index after the first pass, rebuilt when missing; deletions found through it', async (keepDeleted) => {
    const s = sandbox();
    const file = join(tempDir(), 'layout.sqlite');
    const args = ['accounts', 'sync', '--into', file, '--fields', 'ID,lastname', ...(keepDeleted ? ['--keep-deleted'] : []), '-o', 'json'];
    const doomed = await create(s, 'accounts', { lastname: 'Layout doomed', currency: 'EUR', type: 1 });
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    const made = layout(file);
    expect(made.pageSize).toBe(2048);
    const index = keepDeleted ? 'CREATE INDEX "_svc_ids_accounts" ON "accounts" ("_deleted_at", ID)' : 'CREATE INDEX "_svc_ids_accounts" ON "accounts" (ID)';
    expect(made.indexes).toEqual([index]);
    // As an older svc left it: no index.
    const db = new Database(file);
    db.exec('DROP INDEX "_svc_ids_accounts"');
    db.close();
    s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID = ?`).run(doomed);
    const second = await run(args);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ deleted: 1 });
    expect(layout(file).indexes).toEqual([index]);
    const copy = await readCopy(file, 'accounts');
    const live = keepDeleted ? copy.rows.filter((r) => r._deleted_at === null).map(({ _deleted_at, ...r }) => r) : copy.rows;
    expect(live).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', 'ID,lastname', '-o', 'json']), copy.columns));
    if (keepDeleted) expect(copy.rows.find((r) => r.ID === doomed)?._deleted_at).toEqual(expect.any(Number));
  });

  it('an existing database keeps its page size', async () => {
    const file = join(tempDir(), 'theirs.sqlite');
    const db = new Database(file);
    db.pragma('page_size = 8192');
    db.exec('CREATE TABLE notes (body TEXT)');
    db.close();
    const r = await run(['accounts', 'sync', '--into', file, '--fields', 'ID,lastname']);
    expect(r.code, r.stderr).toBe(0);
    expect(layout(file).pageSize).toBe(8192);
  });
});

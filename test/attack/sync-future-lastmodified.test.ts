/**
 * One record whose lastmodified is in the future (a bulk import, a clock jump
 * on the service) must not freeze the copy: the cursor never runs ahead of
 * the clock, so a change made afterwards on another record reaches the copy
 * on the next run (before the fix the cursor became 2100 and every later
 * change was silently skipped, exit 0).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { readCopy, tempDir, update } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

describe('sync: a record stamped in the future', () => {
  it.each(['sqlite', 'duckdb'])('%s: later changes still reach the copy', async (engine) => {
    const db = sandbox().sandbox.db;
    const ids = (db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 2').all() as { ID: number }[]).map((r) => r.ID);
    db.prepare('UPDATE "demo/accounts" SET lastmodified = 4102444800 WHERE ID = ?').run(ids[0]);
    const file = join(tempDir(), `copy.${engine}`);
    const first = await run(['accounts', 'sync', '--into', file, '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const name = `Changed after the future ${engine}`;
    await update(sandbox(), 'accounts', ids[1]!, { lastname: name });
    const second = await run(['accounts', 'sync', '--into', file, '-o', 'json']);
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as { updated: number }).updated).toBeGreaterThanOrEqual(1);
    const copy = await readCopy(file, 'accounts');
    expect(copy.rows.find((r) => r.ID === ids[1])?.lastname).toBe(name);
  });

  it('a cursor ahead of the clock in the state (a hand\'s edit) is taken as the clock: a change made now reaches the copy', async () => {
    const db = sandbox().sandbox.db;
    const [id] = (db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID DESC LIMIT 1').all() as { ID: number }[]).map((r) => r.ID);
    const file = join(tempDir(), 'copy.sqlite');
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const copy = new Database(file);
    copy.prepare("UPDATE _svc_sync SET cursor = 4102444800 WHERE family = 'accounts'").run();
    copy.close();
    await update(sandbox(), 'accounts', id!, { lastname: 'Changed below a cursor in 2100' });
    const second = await run(['accounts', 'sync', '--into', file, '-o', 'json']);
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout) as { updated: number; cursor: number };
    expect(summary.updated).toBe(1);
    expect(summary.cursor).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect((await readCopy(file, 'accounts')).rows.find((r) => r.ID === id)?.lastname).toBe('Changed below a cursor in 2100');
  });
});

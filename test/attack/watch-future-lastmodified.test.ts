/**
 * watch: one record whose lastmodified is in the future (a bulk import, a
 * clock jump on the service) must not blind the feed. Before the fix the
 * cursor became that record's lastmodified (2100) and every later change was
 * below cursor - lag: never reported, exit 0. A resumed watch must report the
 * change, and the future record must not be repeated.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir, update } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

interface Line {
  op: string;
  record: { ID: number; lastname?: string };
}
const lines = (stdout: string): Line[] => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);

describe('watch: a record stamped in the future', () => {
  it('a later change on another record is reported after a restart, the future one not repeated', async () => {
    const db = sandbox().sandbox.db;
    const ids = (db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 2').all() as { ID: number }[]).map((r) => r.ID);
    db.prepare('UPDATE "demo/accounts" SET lastmodified = 4102444800 WHERE ID = ?').run(ids[0]);
    const cursor = join(tempDir(), 'cursor.json');
    const first = await run(['accounts', 'watch', '--once', '--cursor-file', cursor]);
    expect(first.code, first.stderr).toBe(0);
    expect(lines(first.stdout).length).toBeGreaterThan(1);
    await update(sandbox(), 'accounts', ids[1]!, { lastname: 'Changed after the future' });
    const second = await run(['accounts', 'watch', '--once', '--cursor-file', cursor]);
    expect(second.code, second.stderr).toBe(0);
    expect(lines(second.stdout)).toEqual([{ op: 'upsert', family: 'accounts', record: expect.objectContaining({ ID: ids[1], lastname: 'Changed after the future' }) }]);
  });
});

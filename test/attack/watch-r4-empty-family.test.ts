/**
 * watch r4: a first poll that begins on an EMPTY family has no newest stamp
 * to take (newestStamp answers undefined). It fell back to the newest stamp
 * it SAW, the behaviour db94e8a replaced: a change made behind its scan,
 * stamped before a record the scan reached later, was below the cursor of
 * the next poll and never written (here with --lag 0, as the snapshot test
 * for a non-empty family does). Its cursor is now the lowest stamp it wrote.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { insertAccounts } from '../sync/support.js';
import { idsOf, onQueryBody, readCursor, tempDir } from '../watch/support.js';

let clock = Date.UTC(2026, 2, 9, 12);
const { sandbox, run } = sandboxCli({ now: () => clock });

describe('watch r4: a first poll that begins on an empty family', () => {
  it('a change made behind its scan (records created once it began) reaches the next poll, with --lag 0', async () => {
    const s = sandbox();
    s.sandbox.db.pragma('foreign_keys = OFF'); // the seeded contacts point at accounts: the family is emptied as a new one would be
    s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')}`).run();
    s.sandbox.db.pragma('foreign_keys = ON');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--fields', 'ID,lastname,description', '--page-size', '1', '--lag', '0', '--once', '--cursor-file', cursor];
    const touch = (id: number, text: string): void => {
      clock += 600_000;
      s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = ?, lastmodified = ? WHERE ID = ?`).run(text, Math.floor(clock / 1000), id);
    };
    let ids: number[] = [];
    let pages = 0;
    s.sandbox.hooks.record = true;
    const stop = onQueryBody(s, (body) => {
      const fields = (body as { fields?: object }).fields ?? {};
      // The IDs pass (fields {ID}) comes right after the newest-stamp request found nothing: three accounts are loaded now.
      if (ids.length === 0 && Object.keys(fields).length === 1 && 'ID' in fields) ids = insertAccounts(s, 3, Math.floor(clock / 1000), 'Empty');
      if (!('description' in fields)) return;
      pages++;
      if (pages === 2) touch(ids[0]!, 'behind the scan');
      if (pages === 3) touch(ids[2]!, 'ahead of the scan');
    });
    const first = await run(args);
    stop();
    expect(first.code, first.stderr).toBe(0);
    expect(ids).toHaveLength(3);
    expect(idsOf(first.stdout)).toEqual(ids);
    expect(first.stdout).not.toContain('behind the scan');
    const second = await run(args);
    expect(second.code, second.stderr).toBe(0);
    // Was: the cursor C's stamp (20 minutes on), A's change (10 minutes on) below it: nothing written.
    expect(idsOf(second.stdout), `cursor file: ${JSON.stringify(readCursor(cursor))}`).toEqual([ids[0]]);
    expect(second.stdout).toContain('behind the scan');
  });
});

/**
 * watch r4: the first poll's cursor is the service's newest stamp as it
 * began (S0), taken as "the service's clock". One record stamped a few hours
 * ahead (an import; anything under FUTURE_SECONDS = one day passes as clock
 * skew) makes S0 hours ahead of the clock that stamps the next changes: a
 * change made behind the scan (or any time in those hours) was stamped below
 * S0 - lag and no poll asked for it again, even with the default 5m lag. A
 * stamp ahead of this machine's clock is now never the cursor.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { insertAccounts } from '../sync/support.js';
import { idsOf, onQueryBody, readCursor, tempDir } from '../watch/support.js';

let clock = Date.UTC(2026, 2, 9, 12);
const { sandbox, run } = sandboxCli({ now: () => clock });

describe('watch r4: a record stamped hours ahead as the first poll begins', () => {
  it('a change made behind the scan reaches the next poll (default lag)', async () => {
    const s = sandbox();
    const nowS = Math.floor(clock / 1000);
    const ids = insertAccounts(s, 3, nowS - 86_400, 'Skew');
    insertAccounts(s, 1, nowS + 6 * 3600, 'SkewImported'); // imported, stamped six hours ahead: under a day, taken as skew
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^Skew "', '--fields', 'ID,lastname,description', '--page-size', '1', '--once', '--cursor-file', cursor];
    let pages = 0;
    s.sandbox.hooks.record = true;
    const stop = onQueryBody(s, (body) => {
      if (!('description' in ((body as { fields?: object }).fields ?? {}))) return;
      if (++pages === 2) {
        clock += 60_000; // a minute on, stamped by the service's own clock
        s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = ?, lastmodified = ? WHERE ID = ?`).run('behind the scan', Math.floor(clock / 1000), ids[0]);
      }
    });
    const first = await run(args, { now: () => clock }); // svc's clock is the service's, as on one network
    stop();
    expect(first.code, first.stderr).toBe(0);
    expect(idsOf(first.stdout)).toEqual(ids);
    clock += 60_000;
    const second = await run(args, { now: () => clock });
    expect(second.code, second.stderr).toBe(0);
    // Was: the cursor nowS + 6h, A's change (nowS + 60) far below cursor - 5m.
    expect(idsOf(second.stdout), `cursor ${JSON.stringify(readCursor(cursor).cursor)}, clock ${Math.floor(clock / 1000)}`).toEqual([ids[0]]);
  });
});

describe('watch r4: a cursor file whose cursor a hand put ahead', () => {
  it('in 2100: the next poll still asks from this machine\'s clock less the lag, and writes a change made now', async () => {
    const s = sandbox();
    const at = { now: () => clock };
    const [a] = insertAccounts(s, 1, Math.floor(clock / 1000), 'Handset');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^Handset "', '--fields', 'ID,lastname,description', '--once', '--cursor-file', cursor];
    expect(idsOf((await run(args, at)).stdout)).toEqual([a]);
    writeFileSync(cursor, JSON.stringify({ ...readCursor(cursor), cursor: 4102444800 }));
    clock += 60_000;
    s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = ?, lastmodified = ? WHERE ID = ?`).run('changed now', Math.floor(clock / 1000), a);
    const next = await run(args, at);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('changed now');
    expect(readCursor(cursor).cursor).toBeLessThanOrEqual(Math.floor(clock / 1000));
  });
});

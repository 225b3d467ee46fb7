/**
 * watch r5: a steady stream of changes that svc can keep up with. Every page
 * request of the record pass takes one second of the service's clock (page
 * size 1; the scan is measured on the same clock) and, at 60% of them, one
 * record of 400 changes (seeded); 5 s pass between polls. The cursor after a
 * later poll is the highest of its stamps, each less the time the scan took
 * to its page, so it lands before the scan began and each poll fetches again
 * some of the poll before's changes: the polls must still settle (the cursor
 * moves forward at every poll, the window holds a few dozen records, not the
 * family). Measured (SEED=4 RATE=0.6 POLLS=40 R5_SHOW=1 in the environment):
 * record pages per poll settle near 16-28 at 0.6 changes a read, where a
 * cursor at the scan's start would need about 8 (the newest stamp less the
 * whole scan's length, the rule before: 25-60); near 75-95 at 0.75 (before:
 * 100-140).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { onQueryBody, readCursor, tempDir } from '../watch/support.js';
import { insertAccounts } from '../sync/support.js';

const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
let clock = Date.UTC(2026, 4, 14, 12);
const cli = sandboxCli({ now: () => clock });
const { sandbox } = cli;
const run: typeof cli.run = (argv, o = {}) => cli.run(argv, { monotonic: () => clock, now: () => clock, ...o });

describe(`watch r5: polls under a stream of changes slower than svc reads (seed ${seed})`, () => {
  it('settle: the cursor moves forward at every poll, the polls and the window stay a few dozen records', async () => {
    const s = sandbox();
    const random = createRandom(seed);
    const t = table('demo', 'accounts');
    const ids = insertAccounts(s, 400, Math.floor(clock / 1000) - 3600, 'R5G');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^R5G "', '--fields', 'ID,lastname,description', '--page-size', '1', '--lag', '0', '--once', '--cursor-file', cursor];
    expect((await run(args)).code).toBe(0); // the first poll: 400 lines
    let pages = 0;
    const stop = onQueryBody(s, (body) => {
      if (!('description' in ((body as { fields?: object }).fields ?? {}))) return;
      pages++;
      clock += 1000;
      if (random.chance(Number(process.env.RATE ?? 0.6))) s.sandbox.db.prepare(`UPDATE ${t} SET description = ?, lastmodified = ? WHERE ID = ?`).run(`c${pages}`, Math.floor(clock / 1000), random.pick(ids));
    });
    const perPoll: number[] = [];
    const windows: number[] = [];
    const cursors: number[] = [];
    try {
      for (let i = 0; i < Number(process.env.POLLS ?? 20); i++) {
        clock += 5000; // the interval
        if (random.chance(0.6)) s.sandbox.db.prepare(`UPDATE ${t} SET description = ?, lastmodified = ? WHERE ID = ?`).run(`i${i}`, Math.floor(clock / 1000), random.pick(ids));
        pages = 0;
        const r = await run(args);
        expect(r.code, r.stderr).toBe(0);
        perPoll.push(pages);
        windows.push((readCursor(cursor).window as unknown[]).length);
        cursors.push(readCursor(cursor).cursor as number);
      }
    } finally {
      stop();
    }
    const why = `seed ${seed}; record pages per poll: ${perPoll.join(' ')}; window sizes: ${windows.join(' ')}; cursors: ${cursors.join(' ')}`;
    if (process.env.R5_SHOW) console.log(why);
    // The cursor moves forward at every poll (each one fetched changes made after the one before began).
    for (let i = 1; i < cursors.length; i++) expect(cursors[i]!, why).toBeGreaterThan(cursors[i - 1]!);
    // Settled: the changes of a few polls' length, not the family.
    expect(Math.max(...perPoll.slice(-6)), why).toBeLessThan(120);
    expect(Math.max(...windows.slice(-6)), why).toBeLessThan(80);
  });
});

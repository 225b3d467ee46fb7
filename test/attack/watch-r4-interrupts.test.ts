/**
 * watch r4: SIGINT at seeded random moments of a first poll (any request of
 * it: the newest stamp, the IDs pass, any page), at page sizes 1, 7 and 50,
 * with 429s injected at random requests; resumed, the two runs write every
 * record once, in ID order: none missed, none repeated.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { createRandom } from '../../src/util/random.js';
import { insertAccounts } from '../sync/support.js';
import { idsOf, LineCapture, onQuery, readCursor, signalProcesses, tempDir } from '../watch/support.js';

const seed = Number(process.env.SVC_TEST_SEED ?? Date.now() % 2 ** 31);
let clock = Date.UTC(2026, 2, 9, 12);
const { sandbox, run } = sandboxCli({ now: () => clock });

describe(`watch r4: a first poll stopped at a random moment (seed ${seed})`, () => {
  it.each([1, 7, 50])('page size %i: stopped and resumed, every record once', async (pageSize) => {
    const s = sandbox();
    const rnd = createRandom(seed + pageSize);
    const prefix = `Intr${pageSize}x`;
    const ids = insertAccounts(s, 120, Math.floor(clock / 1000) - 3600, prefix);
    for (let trial = 0; trial < 3; trial++) {
      const cursor = join(tempDir(), 'c');
      const args = ['accounts', 'watch', '--filter', `lastname ~ "^${prefix} "`, '--fields', 'ID,lastname', '--page-size', String(pageSize), '--once', '--cursor-file', cursor];
      const queries = 2 + Math.ceil(120 / pageSize) + 1;
      const at = rnd.int(1, queries);
      const stdout = new LineCapture();
      const processes = signalProcesses();
      const stop = onQuery(s, (n) => {
        if (rnd.next() < 0.2) s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 429, body: 'slow down', headers: { 'Retry-After': '0' } } });
        if (n === at) processes.raise(rnd.next() < 0.5 ? 'SIGINT' : 'SIGTERM');
      });
      const first = await run(args, { stdout, processes });
      stop();
      const what = `seed ${seed}, page size ${pageSize}, trial ${trial}, stopped at query ${at}: exit ${first.code} ${first.stderr}; cursor ${JSON.stringify(readCursor(cursor)).slice(0, 300)}`;
      expect([0, 130, 143], what).toContain(first.code);
      const resumed = await run(args);
      expect(resumed.code, `${what}\nresumed: ${resumed.stderr}`).toBe(0);
      const lines = [...stdout.lines(), ...resumed.stdout.split('\n').filter((l) => l !== '')];
      expect(lines.every((l) => l.includes('"op":"upsert"')), `${what}\n${lines.filter((l) => !l.includes('upsert')).join('\n')}`).toBe(true);
      expect(idsOf(lines), what).toEqual(ids);
    }
  }, 20_000);
});

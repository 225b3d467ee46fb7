/**
 * watch r4: SIGINT at seeded random moments of a first poll (any request of
 * it: the newest stamp, the IDs pass, any page), at page sizes 1, 7 and 50,
 * with 429s injected at random requests; resumed, the two runs write every
 * record once, in ID order: none missed, none repeated. And the built svc
 * killed at a seeded line with 10% of requests failing: none missed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { createRandom } from '../../src/util/random.js';
import { insertAccounts } from '../sync/support.js';
import { idsOf, LineCapture, onQuery, readCursor, signalProcesses, spawnSvc, tempDir } from '../watch/support.js';

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

  it('killed (SIGKILL) at a seeded line of a first poll, 10% of requests failing: the resumed run writes every record above the saved place, none missed', async () => {
    const s = sandbox();
    const rnd = createRandom(seed);
    const ids = insertAccounts(s, 300, Math.floor(clock / 1000) - 3600, 'KillF');
    for (let trial = 0; trial < 2; trial++) {
      const cursor = join(tempDir(), 'c');
      const args = ['accounts', 'watch', '--filter', 'lastname ~ "^KillF "', '--fields', 'ID,lastname', '--page-size', String(rnd.int(1, 3)), '--once', '--cursor-file', cursor];
      const stop = onQuery(s, () => {
        if (rnd.next() < 0.1) s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 503, body: 'busy' } });
      });
      const child = spawnSvc(s, args);
      const killAt = rnd.int(1, 250);
      await child.waitLines(killAt, 30_000);
      child.child.kill('SIGKILL');
      const end = await child.exited;
      stop();
      const what = `seed ${seed}, trial ${trial}, killed after ${killAt} lines: ${end.signal} ${end.stderr}`;
      expect(end.signal, what).toBe('SIGKILL');
      const before = idsOf(child.lines());
      const saved = (readCursor(cursor).snapshot as [number, number, number] | null)?.[0] ?? 0;
      const resumed = await run(args);
      expect(resumed.code, `${what}\nresumed: ${resumed.stderr}`).toBe(0);
      const after = idsOf(resumed.stdout);
      expect(after, what).toEqual(ids.filter((id) => id > saved));
      expect(new Set([...before, ...after]), what).toEqual(new Set(ids));
    }
  }, 60_000);
});

/**
 * s9 attack on `svc accounts import` stopped part-way: the built svc, against
 * a sandbox failing 15% of requests at random (503, 429, dropped connections,
 * slow answers), is sent SIGINT or SIGTERM (once, or three times in a row:
 * "Sent a third time, either signal ends svc at once") or SIGKILL when the
 * sandbox logs its n-th request of any kind (lookups included), seeded, at
 * concurrency 1 and 4, with and without --key. Then what is on disk is
 * checked (whole results lines, one per row in input order after a graceful
 * stop, no lock or draft left), and `--resume` is run (faults still on) until
 * it is done: with --key every row is exactly one record; without, no row is
 * ever two, and a row without its record is one the results call unknown.
 *
 * These held (passing tests). Replay: SVC_S9_SEED=<n> npx vitest run test/attack/s9-bulk-interrupt.test.ts
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { countByKey, readResults, rowsFile, tempDir } from '../commands/records/import-support.js';
import { startSvc, svcEnv } from './s9-bulk-support.js';

const SEED = process.env.SVC_S9_SEED ? Number(process.env.SVC_S9_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_S9_SEED=${SEED} npx vitest run test/attack/s9-bulk-interrupt.test.ts`;
const ROWS = 30;
const FAULTS = 0.15;

const { sandbox, run } = sandboxCli();
const tally = { trials: 0, stopped: 0, resumes: 0, unknown: 0 };
afterAll(() => console.log(`s9 import interrupt: seed ${SEED}; ${tally.trials} trials, ${tally.stopped} stopped part-way, ${tally.resumes} resumes, ${tally.unknown} rows left unknown without a key`));
afterEach(() => sandbox().sandbox.hooks.setFaultRate(0));

type Sig = 'SIGINT' | 'SIGTERM' | 'SIGKILL';
const trials: { concurrency: number; signal: Sig; withKey: boolean }[] = [];
for (const concurrency of [1, 4]) for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) trials.push({ concurrency, signal, withKey: true });
for (const concurrency of [1, 4]) for (const signal of ['SIGINT', 'SIGKILL'] as const) trials.push({ concurrency, signal, withKey: false });

describe(`accounts import interrupted at a seeded request, faults on, then resumed (seed ${SEED})`, () => {
  trials.forEach(({ concurrency, signal, withKey }, index) => {
    it(`passes: concurrency ${concurrency}, ${signal}, ${withKey ? 'with --key' : 'without a key'} (seed ${SEED})`, async () => {
      const s = sandbox();
      const random = createRandom(SEED + 101 * index);
      const prefix = `S9INT${index}-`;
      const dir = tempDir();
      const file = rowsFile('rows.ndjson', Array.from({ length: ROWS }, (_, i) => JSON.stringify({ lastname: `${prefix}${i}`, customernum: `${prefix}${i}`, currency: 'EUR' })).join('\n') + '\n', dir);
      const results = join(dir, 'results.ndjson');
      const args = ['accounts', 'import', '--from', file, '--results', results, '--concurrency', String(concurrency), ...(withKey ? ['--key', 'customernum'] : [])];
      const at = random.int(2, 30);
      const times = signal === 'SIGKILL' ? 1 : random.pick([1, 1, 3]);
      s.sandbox.hooks.setFaultRate(FAULTS, SEED + index);

      const child = startSvc(args, svcEnv(s, { extra: { SVC_BULK_GRACE: '2s' } }));
      let seen = 0;
      s.sandbox.hooks.onArrival = () => {
        if (++seen !== at) return;
        for (let i = 0; i < times; i++) child.child.kill(signal);
      };
      const end = await child.ended;
      s.sandbox.hooks.onArrival = undefined;
      tally.trials++;
      const why = `${REPLAY}; ${signal} x${times} at request ${at} (reached: ${seen >= at}); exit ${end.code ?? end.signal}\n${end.stderr}`;

      // What is on disk.
      const text = existsSync(results) ? readFileSync(results, 'utf8') : '';
      const lines = text.split('\n');
      const last = lines.pop();
      const abrupt = signal === 'SIGKILL' || times === 3;
      if (!abrupt) expect(last, why).toBe('');
      for (const l of lines) if (l !== '') expect(() => JSON.parse(l), `${why}\nline ${JSON.stringify(l)}`).not.toThrow();
      const drafts = readdirSync(dirname(results)).filter((f) => f.startsWith(basename(results)) && f.endsWith('.svc-tmp'));
      expect(drafts, why).toEqual([]);
      if (!abrupt && seen >= at) {
        // Stopped gracefully: exit 130 (or done or failed first), the lock gone, one line per row in input order.
        expect([0, 1, 130], why).toContain(end.code);
        if (end.code === 130) {
          tally.stopped++;
          expect(end.stderr, why).toMatch(/--resume/);
        }
        expect(existsSync(`${results}.svc-lock`), why).toBe(false);
        const done = readResults(results).map((r) => r.line ?? 0);
        expect(done, why).toEqual([...done].sort((a, b) => a - b));
        expect(new Set(done).size, why).toBe(done.length);
      }

      // Resume (faults still on) until done.
      const log: string[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await run([...args, '--resume']);
        tally.resumes++;
        log.push(`resume ${i + 1}: exit ${r.code}: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`);
        if (r.code === 0) break;
        const open = readResults(results).filter((x) => x.error !== null && x.action !== 'unknown');
        if (!withKey && r.code === 1 && open.length === 0) break;
      }
      const all = `${why}\n${log.join('\n')}`;
      const final = readResults(results);
      expect(final.map((l) => l.line), all).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
      const counts = countByKey(s, prefix);
      expect([...counts.entries()].filter(([, n]) => n !== 1), all).toEqual([]);
      if (withKey) {
        expect(counts.size, all).toBe(ROWS);
        expect(existsSync(`${results}.svc-state.json`), all).toBe(false);
        return;
      }
      const unknown = new Set(final.filter((l) => l.action === 'unknown').map((l) => `${prefix}${(l.line ?? 0) - 1}`));
      tally.unknown += unknown.size;
      for (let i = 0; i < ROWS; i++) if (!unknown.has(`${prefix}${i}`)) expect(counts.get(`${prefix}${i}`), `${all}\nrow ${i + 1}`).toBe(1);
    }, 60_000);
  });
});

/**
 * s9 round 2: the `--resume` of an import that left `sending` and `unknown`
 * rows (the rows a3836e6 looks up again by key) is itself stopped part-way.
 * The built svc, against a sandbox failing 15% of requests at random, is
 * killed (SIGKILL) at a seeded request of its first run, then its first
 * `--resume` is sent SIGINT, SIGTERM or SIGKILL at a seeded request (its
 * lookups come first, under the results lock now taken before them); then
 * `--resume` runs until done. Checked: after a graceful stop the lock is gone
 * and the results hold whole lines, one per row in input order; in the end
 * every key is exactly one record (with --key), or no row is two records and
 * a row without its record is one the results call unknown (without). A
 * resume stopped during its lookups (exit 130 since 6692e6a) rewrites the
 * killed run's lines into input order too (CI seed 337642467 found it did not).
 *
 * These held (passing tests). Replay: SVC_S9R2_SEED=<n> npx vitest run test/attack/s9-r2-state-interrupt.test.ts
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { countByKey, readResults, rowsFile, tempDir } from '../commands/records/import-support.js';
import { startSvc, svcEnv, type Ended } from './s9-bulk-support.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const SEED = process.env.SVC_S9R2_SEED ? Number(process.env.SVC_S9R2_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_S9R2_SEED=${SEED} npx vitest run test/attack/s9-r2-state-interrupt.test.ts`;
const ROWS = 24;
const FAULTS = 0.15;

const { sandbox, run } = sandboxCli();
const seen = { trials: 0, sending: 0, unknown: 0, gracefulStops: 0 };
afterAll(() => console.log(`s9-r2 resume interrupt: seed ${SEED}; ${seen.trials} trials, ${seen.sending} sending lines left by a kill, ${seen.unknown} unknown rows, ${seen.gracefulStops} resumes stopped gracefully`));
afterEach(() => {
  sandbox().sandbox.hooks.setFaultRate(0);
  sandbox().sandbox.hooks.onArrival = undefined;
});

type Sig = 'SIGINT' | 'SIGTERM' | 'SIGKILL';

/** Runs the built svc and sends `signal` when the sandbox sees its `at`-th request (counted from the start). */
async function runUntil(s: TestSandbox, args: string[], signal: Sig, at: number): Promise<{ end: Ended; reached: boolean }> {
  const child = startSvc(args, svcEnv(s, { extra: { SVC_BULK_GRACE: '2s' } }));
  let n = 0;
  s.sandbox.hooks.onArrival = () => {
    if (++n === at) child.child.kill(signal);
  };
  const end = await child.ended;
  s.sandbox.hooks.onArrival = undefined;
  return { end, reached: n >= at };
}

const trials: { concurrency: number; withKey: boolean }[] = [];
for (const concurrency of [1, 4]) for (const withKey of [true, false]) trials.push({ concurrency, withKey });

describe(`an import killed, its --resume interrupted at a seeded request, faults on, then resumed (seed ${SEED})`, () => {
  trials.forEach(({ concurrency, withKey }, index) => {
    it(`HELD: concurrency ${concurrency}, ${withKey ? 'with --key' : 'without a key'} (seed ${SEED})`, async () => {
      const s = sandbox();
      const random = createRandom(SEED + 7919 * index);
      const prefix = `S9R2RI${index}-`;
      const dir = tempDir();
      const file = rowsFile('rows.ndjson', Array.from({ length: ROWS }, (_, i) => JSON.stringify({ lastname: `${prefix}${i}`, customernum: `${prefix}${i}`, currency: 'EUR' })).join('\n') + '\n', dir);
      const results = join(dir, 'results.ndjson');
      const args = ['accounts', 'import', '--from', file, '--results', results, '--concurrency', String(concurrency), ...(withKey ? ['--key', 'customernum'] : [])];
      s.sandbox.hooks.setFaultRate(FAULTS, SEED + index);
      seen.trials++;

      // 1. Killed outright at a seeded request: `sending` lines for the creates in flight.
      const at1 = random.int(3, 16);
      const first = await runUntil(s, args, 'SIGKILL', at1);
      const leftText = existsSync(results) ? readFileSync(results, 'utf8') : '';
      seen.sending += (leftText.match(/"action":"sending"/g) ?? []).length;
      const log = [`${REPLAY}`, `run 1: SIGKILL at request ${at1} (reached ${first.reached}): exit ${first.end.code ?? first.end.signal}`];

      // 2. Its --resume stopped at a seeded request (lookups first, under the lock).
      const signal = random.pick(['SIGINT', 'SIGTERM', 'SIGKILL'] as const);
      const at2 = random.int(1, 12);
      const second = await runUntil(s, [...args, '--resume'], signal, at2);
      log.push(`run 2 (--resume): ${signal} at request ${at2} (reached ${second.reached}): exit ${second.end.code ?? second.end.signal}: ${second.end.stderr.trim().split('\n').slice(-2).join(' / ')}`);
      const why = log.join('\n');
      const drafts = readdirSync(dirname(results)).filter((f) => f.startsWith(basename(results)) && (f.endsWith('.svc-tmp') || f.endsWith('.tmp')));
      expect(drafts, why).toEqual([]);
      // A resume killed outright by its signal (before 6692e6a, a SIGINT during the lookups) is only checked to converge below.
      if (signal !== 'SIGKILL' && second.reached && second.end.signal !== 'SIGINT') {
        expect([0, 1, 130], why).toContain(second.end.code);
        if (second.end.code === 130) seen.gracefulStops++;
        expect(existsSync(`${results}.svc-lock`), why).toBe(false);
        if (existsSync(results)) {
          const text = readFileSync(results, 'utf8');
          expect(text === '' || text.endsWith('\n'), why).toBe(true);
          const lines = readResults(results).map((r) => r.line ?? 0);
          expect(lines, why).toEqual([...lines].sort((a, b) => a - b));
          expect(new Set(lines).size, why).toBe(lines.length);
        }
      }

      // 3. --resume (faults still on) until done.
      for (let i = 0; i < 8; i++) {
        const r = await run([...args, '--resume']);
        log.push(`resume ${i + 1}: exit ${r.code}: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`);
        if (r.code === 0) break;
        const open = readResults(results).filter((x) => x.error !== null && x.action !== 'unknown');
        if (!withKey && r.code === 1 && open.length === 0) break;
      }
      const all = log.join('\n');
      const final = readResults(results);
      expect(final.map((l) => l.line), all).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
      const counts = countByKey(s, prefix);
      expect([...counts.entries()].filter(([, n]) => n !== 1), all).toEqual([]);
      if (withKey) {
        expect(counts.size, all).toBe(ROWS);
        expect(final.every((l) => l.error === null && l.action === 'create'), all).toBe(true);
        expect(existsSync(`${results}.svc-state.json`), all).toBe(false);
        return;
      }
      const unknown = new Set(final.filter((l) => l.action === 'unknown').map((l) => `${prefix}${(l.line ?? 0) - 1}`));
      seen.unknown += unknown.size;
      for (let i = 0; i < ROWS; i++) if (!unknown.has(`${prefix}${i}`)) expect(counts.get(`${prefix}${i}`), `${all}\nrow ${i + 1}`).toBe(1);
    }, 90_000);
  });
});

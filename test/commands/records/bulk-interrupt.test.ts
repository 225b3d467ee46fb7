/**
 * `update --filter` and `delete --filter` stopped part-way: the built svc,
 * against a sandbox that fails 15% of requests at random (503, 429, dropped
 * connections, slow answers), is sent SIGINT, SIGTERM or SIGKILL when the
 * sandbox receives its n-th write (seeded), at concurrency 1 and 4. Then:
 * - SIGINT/SIGTERM end it with exit 130 (or 0/1 when it finished or gave up
 *   first), saying how far it got and to run the command again;
 * - every matching record is either written or untouched, no record outside
 *   the filter is touched, and every results line is whole and names a
 *   matching record;
 * - the same command run again (faults off) writes the rest and exits 0: an
 *   update leaves the records already updated alone (unchanged).
 * Replay: SVC_BULK_SEED=<n> npx vitest run test/commands/records/bulk-interrupt.test.ts
 * Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../../helpers/cli.js';
import { accountsNamed, insertAccount, tempDir } from './import-support.js';

const SEED = process.env.SVC_BULK_SEED ? Number(process.env.SVC_BULK_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_BULK_SEED=${SEED} npx vitest run test/commands/records/bulk-interrupt.test.ts`;
const RECORDS = 40;
const FAULT_RATE = 0.15;

const { sandbox, run } = sandboxCli();
const tally = { trials: 0, stoppedEarly: 0, finishedFirst: 0 };
afterAll(() => console.log(`bulk interrupt: seed ${SEED}; ${tally.trials} trials, ${tally.stoppedEarly} stopped part-way, ${tally.finishedFirst} finished or gave up before the signal`));

/** Runs the built svc and sends `signal` when the sandbox receives its `at`-th request of `method`. */
async function stoppedAt(args: readonly string[], method: string, at: number, signal: NodeJS.Signals) {
  const s = sandbox();
  const env = { PATH: process.env.PATH ?? '', SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let seen = 0;
  s.sandbox.hooks.onArrival = (m) => {
    if (m === method && ++seen === at) child.kill(signal);
  };
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, got] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, sig) => r([c, sig])));
  clearTimeout(watchdog);
  s.sandbox.hooks.onArrival = undefined;
  return { code, signal: got, stderr, reached: seen >= at };
}

/** The whole lines of a results file (a SIGKILL may cut the last one short, never an earlier one). */
function wholeLines(path: string, killed: boolean): { id: number; action: string }[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n');
  const last = lines.pop();
  if (last !== '' && !killed) throw new Error(`the results file ends in a cut line: ${JSON.stringify(last)}`);
  return lines.map((l) => JSON.parse(l) as { id: number; action: string });
}

describe(`update --filter and delete --filter stopped part-way (seed ${SEED})`, () => {
  for (const verb of ['update', 'delete'] as const) {
    for (const [ci, concurrency] of [1, 4].entries()) {
      for (const kind of ['SIGKILL', 'SIGINT or SIGTERM'] as const) {
        it(`${verb}, concurrency ${concurrency}, ${kind} (seed ${SEED})`, async () => {
          const random = createRandom(SEED + 101 * ci + (verb === 'update' ? 0 : 7) + (kind === 'SIGKILL' ? 0 : 13));
          const signal: NodeJS.Signals = kind === 'SIGKILL' ? 'SIGKILL' : random.pick(['SIGINT', 'SIGTERM'] as const);
          const s = sandbox();
          const prefix = `Bulk${verb[0]}${concurrency}${signal.slice(3, 6)}-`;
          for (let i = 0; i < RECORDS; i++) insertAccount(s, { lastname: `${prefix}${i}`, firstname: 'Before' });
          // Neighbours the filter leaves out: never touched.
          for (let i = 0; i < 5; i++) insertAccount(s, { lastname: `X${prefix}${i}`, firstname: 'Before' });
          const results = join(tempDir(), 'results.ndjson');
          const args = ['accounts', verb, '--filter', `lastname ~ "^${prefix}"`, ...(verb === 'update' ? ['firstname=After'] : []), '--yes', '--concurrency', String(concurrency), '--results', results];
          const at = random.int(1, RECORDS - 5);
          s.sandbox.hooks.setFaultRate(FAULT_RATE, random.int(1, 2 ** 30));
          const stopped = await stoppedAt(args, verb === 'update' ? 'PATCH' : 'DELETE', at, signal);
          s.sandbox.hooks.setFaultRate(0, 1);
          tally.trials++;
          const why = `${REPLAY}; ${signal} at ${verb} ${at}: exit ${stopped.code} ${stopped.signal ?? ''}\n${stopped.stderr}`;
          if (signal === 'SIGKILL' && stopped.reached) expect(stopped.signal, why).toBe('SIGKILL');
          if (signal !== 'SIGKILL') {
            // Exit 130 when the signal came first; 0 or 1 (the faults outlasted a record's retries) when it did not.
            expect([0, 1, 130], why).toContain(stopped.code);
            if (stopped.code === 130) expect(stopped.stderr, why).toMatch(/interrupted by SIG(INT|TERM) after \d+ of \d+ records; run the command again for the rest\n$/);
          }
          if (stopped.code === 130 || stopped.signal === 'SIGKILL') tally.stoppedEarly++;
          else tally.finishedFirst++;

          // Each matching record written or untouched; the neighbours untouched.
          const byName = new Map(accountsNamed(s, prefix).map((a) => [String(a.lastname), a]));
          const ids = new Set([...byName.values()].map((a) => Number(a.ID)));
          for (const a of byName.values()) expect(['Before', 'After'], why).toContain(a.firstname);
          expect(accountsNamed(s, `X${prefix}`).map((a) => a.firstname), why).toEqual(Array(5).fill('Before'));
          for (const line of wholeLines(results, stopped.signal === 'SIGKILL')) {
            expect(line.action, why).toBe(verb);
            if (verb === 'update') expect(ids.has(line.id), `${why}\n${JSON.stringify(line)}`).toBe(true);
          }

          // Run again, faults off: the rest is written.
          const again = await run(args);
          const all = `${why}\nagain: exit ${again.code}\n${again.stderr}`;
          expect(again.code, all).toBe(0);
          const after = accountsNamed(s, prefix);
          if (verb === 'update') {
            expect(after.map((a) => a.firstname), all).toEqual(Array(RECORDS).fill('After'));
            const written = RECORDS - [...byName.values()].filter((a) => a.firstname === 'After').length;
            expect(again.stderr, all).toContain(`accounts update (${RECORDS} records): ${written} updated, ${RECORDS - written} unchanged`);
          } else {
            expect(after, all).toEqual([]);
          }
          expect(accountsNamed(s, `X${prefix}`).map((a) => a.firstname), all).toEqual(Array(5).fill('Before'));
        }, 90_000);
      }
    }
  }
});

/**
 * Attack on bdc3443 (the cursor file keeps the window's edge; a poll never
 * asks from below it): a watch restarted with --once at every step, a seeded
 * --lag each time (lowered, raised, 0), the sandbox's clock moved by the test,
 * records created and changed between the polls, and a first poll with or
 * without --since. Claims: every change is written by the next poll (no silent
 * miss), and no version of a record is written twice.
 * Replay: SVC_TODAY_SEED=<n> npx vitest run test/attack/today-watch-edge.test.ts
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { createAccount, readCursor, tempDir, updateAccount } from '../watch/support.js';

const SEED = process.env.SVC_TODAY_SEED ? Number(process.env.SVC_TODAY_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_TODAY_SEED=${SEED} npx vitest run test/attack/today-watch-edge.test.ts`;

let clock = Date.UTC(2026, 2, 9, 8);
const cli = sandboxCli({ now: () => clock });
const { sandbox } = cli;
// svc's clock is the test's too (a --since duration counts back from it, and the edge is checked against it).
const run: typeof cli.run = (argv, o = {}) => cli.run(argv, { now: () => clock, monotonic: () => clock, ...o });

const LAGS = ['0s', '5s', '60s', '10m', '2h', '1d'] as const;
const STEPS_MS = [0, 1_000, 30_000, 600_000, 3_600_000, 4 * 3_600_000] as const;

describe(`attack today: the watch's edge under restarts and changing --lag (seed ${SEED})`, () => {
  for (const since of [undefined, '30m'] as const) {
    it(`every change is written once, by the next poll${since ? ` (first poll with --since ${since})` : ''} (seed ${SEED})`, async () => {
      const random = createRandom(SEED + (since ? 7 : 0));
      const s = sandbox();
      const prefix = `TE${since ? 's' : 'n'}-`;
      const cursor = join(tempDir(), 'c');
      const current = new Map<number, string>();
      const seen = new Map<string, number>();
      const log: string[] = [];
      let version = 0;
      for (let step = 0; step < 24; step++) {
        clock += STEPS_MS[random.int(0, STEPS_MS.length - 1)]!;
        const expected: string[] = [];
        const ops = random.int(0, 3);
        for (let k = 0; k < ops; k++) {
          const ids = [...current.keys()];
          if (ids.length === 0 || random.int(0, 2) === 0) {
            const name = `${prefix}${++version}`;
            const id = await createAccount(s, name, `v${version}`);
            current.set(id, `${name}/v${version}`);
            expected.push(`${id}:${name}/v${version}`);
          } else {
            const id = ids[random.int(0, ids.length - 1)]!;
            const name = current.get(id)!.split('/')[0]!;
            await updateAccount(s, id, { firstname: `v${++version}` });
            current.set(id, `${name}/v${version}`);
            for (let e = expected.length - 1; e >= 0; e--) if (expected[e]!.startsWith(`${id}:`)) expected.splice(e, 1);
            expected.push(`${id}:${name}/v${version}`);
          }
          if (random.int(0, 1) === 1) clock += random.int(0, 3) * 1000;
        }
        const lag = LAGS[random.int(0, LAGS.length - 1)]!;
        const args = ['accounts', 'watch', '--filter', `lastname ~ "^${prefix}"`, '--fields', 'ID,lastname,firstname', '--lag', lag, '--once', '--cursor-file', cursor];
        if (since && step === 0) args.push('--since', since);
        const r = await run(args);
        const why = `${REPLAY}; step ${step}, --lag ${lag}\n${log.join('\n')}\n${r.stderr}`;
        expect(r.code, why).toBe(0);
        const written = r.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const { op, record } = JSON.parse(line) as { op: string; record: { ID: number; lastname: string; firstname: string } };
            expect(op, why).toBe('upsert');
            return `${record.ID}:${record.lastname}/${record.firstname}`;
          });
        log.push(`step ${step} lag ${lag} clock ${clock / 1000}: wrote ${written.join(' ') || '-'}; cursor ${JSON.stringify(readCursor(cursor).cursor)} edge ${JSON.stringify(readCursor(cursor).edge)}`);
        for (const w of written) {
          seen.set(w, (seen.get(w) ?? 0) + 1);
          expect(seen.get(w), `${w} written twice; ${why}`).toBe(1);
        }
        for (const e of expected) expect(written, `${e} missed; ${why}`).toContain(e);
      }
    }, 30_000);
  }
});

/**
 * The built svc importing, killed with SIGKILL at a seeded moment (when the
 * sandbox receives its n-th create), then resumed: with --key every row ends
 * up as exactly one record; without a key no row is ever created twice, and
 * a row left without its record is one the results call unknown. At
 * concurrency 1 and 4. Needs `npm run build`.
 * Replay: SVC_IMPORT_SEED=<n> npx vitest run test/commands/records/import-kill.test.ts
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../../helpers/cli.js';
import { countByKey, readResults, rowsFile, tempDir } from './import-support.js';

const SEED = process.env.SVC_IMPORT_SEED ? Number(process.env.SVC_IMPORT_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_IMPORT_SEED=${SEED} npx vitest run test/commands/records/import-kill.test.ts`;
const ROWS = 60;

const { sandbox, run } = sandboxCli();

/** Runs the built svc with these arguments and kills it when the sandbox receives its `at`-th create. */
async function killedAt(args: readonly string[], at: number): Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  const s = sandbox();
  const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let puts = 0;
  s.sandbox.hooks.onArrival = (method) => {
    if (method === 'PUT' && ++puts === at) child.kill('SIGKILL');
  };
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, sig) => r([c, sig])));
  clearTimeout(watchdog);
  s.sandbox.hooks.onArrival = undefined;
  return { code, signal, stderr };
}

/** What the trials exercised, printed at the end: creates in flight at the kill, and unknown rows after the resume. */
const tally = { runs: 0, sending: 0, unknown: 0 };
afterAll(() => console.log(`import kill: seed ${SEED}; ${tally.runs} kills, ${tally.sending} creates in flight at the kill, ${tally.unknown} rows unknown after resuming without a key`));

describe(`accounts import killed with SIGKILL and resumed (seed ${SEED})`, () => {
  for (const [ci, concurrency] of [1, 4].entries()) {
    for (const [ki, withKey] of [true, false].entries()) {
      it(`concurrency ${concurrency}, ${withKey ? 'with --key' : 'without a key'} (seed ${SEED})`, async () => {
        const random = createRandom(SEED + 31 * ci + 7 * ki);
        const prefix = `KILL${concurrency}${withKey ? 'K' : 'N'}-`;
        const at = random.int(1, ROWS - 5);
        const dir = tempDir();
        const file = rowsFile('rows.ndjson', Array.from({ length: ROWS }, (_, i) => JSON.stringify({ lastname: `${prefix}${i}`, customernum: `${prefix}${i}`, currency: 'EUR', type: 1 })).join('\n') + '\n', dir);
        const results = join(dir, 'results.ndjson');
        const args = ['accounts', 'import', '--from', file, '--results', results, '--concurrency', String(concurrency), ...(withKey ? ['--key', 'customernum'] : [])];
        const killed = await killedAt(args, at);
        const before = readResults(results);
        tally.runs++;
        const last = new Map(before.map((l) => [l.line, l.action]));
        tally.sending += [...last.values()].filter((a) => a === 'sending').length;
        const why = `${REPLAY}; killed at create ${at}\n${killed.stderr}`;
        expect(killed.signal, why).toBe('SIGKILL');
        const resumed = await run([...args, '--resume']);
        const all = `${why}\nresume: exit ${resumed.code}\n${resumed.stderr}`;
        const counts = countByKey(sandbox(), prefix);
        const lines = readResults(results);
        expect(lines.map((l) => l.line), all).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
        // Never a duplicate.
        expect([...counts.values()].every((n) => n === 1), all).toBe(true);
        if (withKey) {
          expect(resumed.code, all).toBe(0);
          expect(counts.size, all).toBe(ROWS);
          return;
        }
        // Without a key: every row has its record, except unknown ones, which may or may not.
        tally.unknown += lines.filter((l) => l.action === 'unknown').length;
        const unknown = new Set(lines.filter((l) => l.action === 'unknown').map((l) => `${prefix}${(l.line ?? 0) - 1}`));
        for (let i = 0; i < ROWS; i++) if (!unknown.has(`${prefix}${i}`)) expect(counts.get(`${prefix}${i}`), `${all}\nrow ${i + 1}`).toBe(1);
        expect(unknown.size, all).toBeLessThanOrEqual(concurrency);
        expect(resumed.code, all).toBe(unknown.size > 0 ? 1 : 0);
      }, 90_000);
    }
  }
});

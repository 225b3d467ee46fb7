/**
 * The built svc syncing, killed with SIGKILL at a seeded moment (when the
 * sandbox receives its n-th query), with the sandbox failing a share of
 * requests at random (as `svc sandbox start --faults`): during a first sync
 * and during an incremental one, at concurrency 1 and 4, into SQLite and
 * DuckDB. Every re-run converges: the copy equals `query --all` of the same
 * filter and fields, row for row. SIGINT stops it with exit 130 the same
 * way. Needs `npm run build`.
 * Replay: SVC_SYNC_SEED=<n> npx vitest run test/sync/crash.test.ts
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { createRandom, type Random } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { expectedRows, insertAccounts, readCopy, tempDir } from './support.js';

const SEED = process.env.SVC_SYNC_SEED ? Number(process.env.SVC_SYNC_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_SYNC_SEED=${SEED} npx vitest run test/sync/crash.test.ts`;
const FILTER = 'type != SUPPLIER';
const FIELDS = 'ID,lastname,type,description,lastmodified';
/** Ranges of at most this many held IDs are compared ID by ID: small, so the deletions' ranges are split and counted. */
const LEAF = '50';

const { sandbox, run } = sandboxCli();

/** Runs the built svc and stops it with `signal` when the sandbox receives its `at`-th query; resolves when it has exited. */
async function stoppedAt(args: readonly string[], at: number, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; queries: number }> {
  const s = sandbox();
  const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', SVC_SYNC_LEAF: LEAF };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let queries = 0;
  s.sandbox.hooks.onArrival = (method, url) => {
    if (method === 'POST' && url.includes('/api/v1/accounts') && ++queries === at) child.kill(signal);
  };
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code, sig] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, sg) => r([c, sg])));
  clearTimeout(watchdog);
  s.sandbox.hooks.onArrival = undefined;
  return { code, signal: sig, stderr, queries };
}

/** Changes on the service as it makes them (lastmodified now): updates, deletes and inserts of the bulk accounts, some leaving the filter. */
function changeSome(random: Random, ids: number[]): void {
  const s = sandbox();
  const now = Math.floor(Date.now() / 1000);
  const db = s.sandbox.db;
  const t = table('demo', 'accounts');
  db.transaction(() => {
    for (let i = 0; i < 60; i++) {
      const id = ids[random.int(0, ids.length - 1)]!;
      db.prepare(`UPDATE ${t} SET lastname = ?, type = ?, lastmodified = ? WHERE ID = ?`).run(`Changed ${i} ${random.int(0, 1e6)}`, random.int(0, 4), now, id);
    }
    for (let i = 0; i < 15; i++) {
      const at = random.int(0, ids.length - 1);
      const [id] = ids.splice(at, 1);
      db.prepare(`DELETE FROM ${t} WHERE ID = ?`).run(id);
    }
  })();
  ids.push(...insertAccounts(s, 40, now, `Late ${random.int(0, 1e6)}`));
}

/** Runs the sync in-process until it succeeds (a run may fail on the faults: exit 1, never a wrong copy). */
async function converge(args: readonly string[]): Promise<string> {
  let log = '';
  for (let i = 0; i < 6; i++) {
    const r = await run([...args], { env: { SVC_SYNC_LEAF: LEAF } });
    log += `\nre-run ${i + 1}: exit ${r.code} ${r.stderr}`;
    if (r.code === 0) return log;
    expect(r.code, log).toBe(1);
  }
  throw new Error(`no re-run succeeded${log}`);
}

let bulk: number[] = [];
const tally = { kills: 0, interrupts: 0, firstPassesContinued: 0 };
beforeAll(() => {
  bulk = insertAccounts(sandbox(), 1500, Math.floor(Date.now() / 1000) - 86_400);
});
afterAll(() => console.log(`sync crash: seed ${SEED}; ${tally.kills} kills, ${tally.interrupts} interrupts, ${tally.firstPassesContinued} first passes continued from a committed page`));

describe(`sync killed with SIGKILL under faults, then re-run (seed ${SEED})`, () => {
  const cases = [
    ['sqlite', 1, 'first'],
    ['sqlite', 4, 'first'],
    ['sqlite', 1, 'incremental'],
    ['sqlite', 4, 'incremental'],
    ['duckdb', 4, 'first'],
    ['duckdb', 1, 'incremental'],
    ['sqlite', 2, 'incremental'],
    ['duckdb', 2, 'first'],
  ] as const;
  for (const [i, [engine, concurrency, phase]] of cases.entries()) {
    it(`${engine}, concurrency ${concurrency}, during the ${phase} sync (seed ${SEED})`, async () => {
      const random = createRandom(SEED + 101 * i);
      const s = sandbox();
      const target = join(tempDir(), `copy.${engine}`);
      const args = ['accounts', 'sync', '--into', target, '--filter', FILTER, '--fields', FIELDS, '--page-size', '40', '--concurrency', String(concurrency)];
      if (phase === 'incremental') {
        expect((await run(args, { env: { SVC_SYNC_LEAF: LEAF } })).code).toBe(0);
        changeSome(random, bulk);
      }
      s.sandbox.hooks.setFaultRate(0.05, SEED + i);
      const at = phase === 'first' ? random.int(1, 25) : random.int(1, 6);
      const killed = await stoppedAt(args, at, 'SIGKILL');
      const why = `${REPLAY}; killed at query ${at}\n${killed.stderr}`;
      tally.kills += killed.signal === 'SIGKILL' ? 1 : 0;
      if (phase === 'first') expect(killed.signal, why).toBe('SIGKILL');
      if (phase === 'first' && existsSync(target)) {
        // What the kill left: nothing yet, or the first pass's progress with the pages it describes.
        const left = await readCopy(target, 'accounts').catch(() => undefined);
        if (left && left.state.phase === 'initial' && Number(left.state.after_id) > 0) {
          tally.firstPassesContinued++;
          expect(Math.max(...left.rows.map((r) => Number(r.ID))), why).toBe(Number(left.state.after_id));
        }
      }
      const log = await converge(args);
      s.sandbox.hooks.setFaultRate(0);
      const copy = await readCopy(target, 'accounts');
      const want = expectedRows(await run(['accounts', 'query', '--all', '--filter', FILTER, '--fields', FIELDS, '-o', 'json']), copy.columns);
      expect(copy.rows.length, why + log).toBe(want.length);
      expect(copy.rows, why + log).toEqual(want);
      expect(copy.state.phase).toBe('ready');
    }, 40_000);
  }

  it.each([
    ['SIGINT', 4],
    ['SIGTERM', 2],
  ] as const)(`%s during an incremental sync at concurrency %i, 5%% faults (the pages asked ahead in flight): exit 130, one line, or done first; the re-run converges (seed ${SEED})`, async (signal, concurrency) => {
    const random = createRandom(SEED + (signal === 'SIGINT' ? 13 : 17));
    const s = sandbox();
    const target = join(tempDir(), `${signal}-later.sqlite`);
    const args = ['accounts', 'sync', '--into', target, '--filter', FILTER, '--fields', FIELDS, '--page-size', '40', '--concurrency', String(concurrency)];
    expect((await run(args, { env: { SVC_SYNC_LEAF: LEAF } })).code).toBe(0);
    changeSome(random, bulk);
    s.sandbox.hooks.setFaultRate(0.05, SEED + concurrency);
    try {
      const at = random.int(1, 6);
      const stopped = await stoppedAt(args, at, signal);
      const why = `${REPLAY}; ${signal} at query ${at}\n${stopped.stderr}`;
      if (stopped.code !== 0) {
        tally.interrupts++;
        expect(stopped.code, why).toBe(130);
        expect(stopped.stderr, why).toMatch(new RegExp(`^svc: interrupted by ${signal}`));
        expect(stopped.stderr.trimEnd().split('\n'), why).toHaveLength(1);
      }
      await converge(args);
    } finally {
      s.sandbox.hooks.setFaultRate(0);
    }
    const copy = await readCopy(target, 'accounts');
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--filter', FILTER, '--fields', FIELDS, '-o', 'json']), copy.columns));
  }, 40_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(`%s during a first sync: exit 130, one line; the re-run converges (seed ${SEED})`, async (signal) => {
    const random = createRandom(SEED + (signal === 'SIGINT' ? 7 : 11));
    const target = join(tempDir(), `${signal}.sqlite`);
    const args = ['accounts', 'sync', '--into', target, '--fields', 'ID,lastname', '--page-size', '40', '--concurrency', '2'];
    const at = random.int(3, 30);
    const stopped = await stoppedAt(args, at, signal);
    tally.interrupts++;
    expect(stopped.code, `${REPLAY}; ${signal} at query ${at}\n${stopped.stderr}`).toBe(130);
    expect(stopped.stderr).toMatch(new RegExp(`^svc: interrupted by ${signal}`));
    expect(stopped.stderr.trimEnd().split('\n')).toHaveLength(1);
    await converge(args);
    const copy = await readCopy(target, 'accounts');
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', 'ID,lastname', '-o', 'json']), copy.columns));
  }, 40_000);
});

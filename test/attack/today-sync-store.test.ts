/**
 * Attack on de97203 (the SQLite and DuckDB stores switch to WAL and make
 * _svc_sync only at the first write): the built svc's first sync killed with
 * SIGKILL right after the store is open (at its first query of the family,
 * before any write) or in its first transactions (the next queries), at
 * concurrency 1 and 4, then re-run: the copy is exactly `query --all`; what
 * the kill left is read by --status without a crash. A copy switched to a
 * rollback journal by hand keeps syncing, and an existing copy keeps working.
 * Needs the built CLI (bin/svc.js from HEAD).
 * Replay: SVC_TODAY_SEED=<n> npx vitest run test/attack/today-sync-store.test.ts
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { expectedRows, insertAccounts, readCopy, tempDir, update } from '../sync/support.js';

const SEED = process.env.SVC_TODAY_SEED ? Number(process.env.SVC_TODAY_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_TODAY_SEED=${SEED} npx vitest run test/attack/today-sync-store.test.ts`;
const FIELDS = 'ID,lastname,type,lastmodified';

const { sandbox, run } = sandboxCli();

beforeAll(() => {
  insertAccounts(sandbox(), 400, Math.floor(Date.now() / 1000) - 3600, 'Today');
});

/** The built svc, killed with SIGKILL as the sandbox receives its `at`-th query of accounts. */
async function killedAt(args: readonly string[], at: number): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  const s = sandbox();
  const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let queries = 0;
  s.sandbox.hooks.onArrival = (method, url) => {
    if (method === 'POST' && url.includes('/api/v1/accounts') && ++queries === at) child.kill('SIGKILL');
  };
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, sg) => r([c, sg])));
  clearTimeout(watchdog);
  s.sandbox.hooks.onArrival = undefined;
  return { signal, stderr };
}

async function expectExact(target: string, why: string): Promise<void> {
  const copy = await readCopy(target, 'accounts');
  const want = expectedRows(await run(['accounts', 'query', '--all', '--fields', FIELDS, '-o', 'json']), copy.columns);
  expect(copy.rows.length, why).toBe(want.length);
  expect(copy.rows, why).toEqual(want);
  expect(copy.state.phase, why).toBe('ready');
}

describe(`attack today: a first sync killed right after open or in its first transactions (seed ${SEED})`, () => {
  const cases = [
    ['sqlite', 1],
    ['sqlite', 4],
    ['duckdb', 1],
    ['duckdb', 4],
  ] as const;
  for (const [i, [engine, concurrency]] of cases.entries()) {
    it(`${engine}, concurrency ${concurrency}: re-run converges to the exact state (seed ${SEED})`, async () => {
      const random = createRandom(SEED + 31 * i);
      const target = join(tempDir(), `first.${engine}`);
      const args = ['accounts', 'sync', '--into', target, '--fields', FIELDS, '--page-size', '25', '--concurrency', String(concurrency)];
      const at = random.int(1, 3);
      const killed = await killedAt(args, at);
      const why = `${REPLAY}; killed at query ${at}\n${killed.stderr}`;
      expect(killed.signal, why).toBe('SIGKILL');
      if (existsSync(target)) {
        // What the kill left is a file svc reads: a copy, or one that holds none yet (exit 2, one line).
        const st = await run(['sync', '--into', target, '--status', '-o', 'json']);
        expect([0, 2], `${why}\n${st.stderr}`).toContain(st.code);
        expect(st.stderr, why).not.toMatch(/unexpected error/);
        if (st.code === 2) expect(st.stderr.trimEnd().split('\n'), why).toHaveLength(1);
      }
      const again = await run(args);
      expect(again.code, `${why}\nre-run: ${again.stderr}`).toBe(0);
      await expectExact(target, why);
      // And it keeps working: a later change comes with the next run.
      const copy = await readCopy(target, 'accounts');
      const id = Number(copy.rows[Math.floor(copy.rows.length / 2)]?.ID);
      await update(sandbox(), 'accounts', id, { lastname: `After kill ${SEED}` });
      expect((await run(args)).code).toBe(0);
      await expectExact(target, why);
    }, 30_000);
  }
});

describe('attack today: a copy in a rollback journal (made so by hand), then synced', () => {
  it('stays consistent, is switched to WAL by its first write, and --status reads it before and after', async () => {
    const target = join(tempDir(), 'rollback.sqlite');
    const args = ['accounts', 'sync', '--into', target, '--fields', FIELDS];
    expect((await run(args)).code).toBe(0);
    const db = new Database(target);
    expect(db.pragma('journal_mode = DELETE', { simple: true })).toBe('delete');
    db.close();
    expect(existsSync(`${target}-wal`)).toBe(false);
    const before = await run(['accounts', 'sync', '--into', target, '--status', '-o', 'json']);
    expect(before.code, before.stderr).toBe(0);
    // A read-only look (--status) changes nothing: still a rollback journal.
    const peek = new Database(target, { readonly: true });
    expect(peek.pragma('journal_mode', { simple: true })).toBe('delete');
    peek.close();
    const copy = await readCopy(target, 'accounts');
    await update(sandbox(), 'accounts', Number(copy.rows[3]?.ID), { lastname: 'Rollback changed' });
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
    await expectExact(target, 'after a sync of the rollback-journal copy');
    const after = new Database(target, { readonly: true });
    expect(after.pragma('journal_mode', { simple: true })).toBe('wal');
    after.close();
  }, 30_000);
});

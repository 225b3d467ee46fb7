/**
 * export --format parquet at --concurrency 4: the first chunk's page
 * holds a value that does not fit its column, while the first page of every
 * other chunk stalls in the sandbox. The built svc must end at once (exit 1,
 * one line naming the record), abort the stalled requests (the sandbox sees
 * their sockets close), and leave a checkpoint (of no rows) from which, the value fixed, --resume finishes the clean export's bytes
 * (GZIP and uncompressed). Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { seedTrickyAccounts, tempDir } from '../export/support.js';

const STALL_MS = 8000;
const closedByClient: string[] = [];
let onClosed: (() => void) | undefined;
const { sandbox, run } = sandboxCli({
  log: (line) => {
    if (!/closed by the client during an injected delay/.test(line)) return;
    closedByClient.push(line);
    onClosed?.();
  },
});
const ENV = { SVC_PARQUET_ROW_GROUP: '10' };

beforeAll(() => {
  seedTrickyAccounts(sandbox(), 400);
});

async function svcBuilt(args: readonly string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const s = sandbox();
  const env = { ...process.env, ...ENV, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  clearTimeout(watchdog);
  return { code, stderr, ms: performance.now() - started };
}

/**
 * A value that does not fit its column in the first chunk's page (the 15th record), and the first page of
 * every other chunk stalled: arrivals 1 and 2 are the ID sample and the highest ID, 3 the first chunk's first
 * page, 4 to 6 the other chunks' first pages. `arrived` counts the data queries; `restore` undoes both.
 */
function unfitAndStalled(): { bad: number; arrived(): number; restore(): void } {
  const s = sandbox();
  const db = s.sandbox.db;
  const bad = (db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 1 OFFSET 14').get() as { ID: number }).ID;
  const was = (db.prepare('SELECT creator AS v FROM "demo/accounts" WHERE ID = ?').get(bad) as { v: unknown }).v;
  db.prepare('UPDATE "demo/accounts" SET creator = 9007199254740993 WHERE ID = ?').run(bad);
  let arrived = 0;
  s.sandbox.hooks.onArrival = (method, url) => {
    if (method !== 'POST' || !url.endsWith('/api/v1/accounts')) return;
    arrived++;
    if (arrived >= 4 && arrived <= 6) s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { delayMs: STALL_MS } });
  };
  return {
    bad,
    arrived: () => arrived,
    restore: () => {
      s.sandbox.hooks.onArrival = undefined;
      db.prepare('UPDATE "demo/accounts" SET creator = ? WHERE ID = ?').run(was, bad);
    },
  };
}

describe('export --format parquet: a value that does not fit while chunks are in flight', () => {
  it.each([['gzip'], ['none']])('--compression %s: exit 1 at once, stalled requests aborted, nothing kept of a run that wrote no row group, and the next run gives the clean bytes', async (compression) => {
    const dir = tempDir();
    const clean = join(dir, 'clean.parquet');
    const args = ['accounts', 'export', '--format', 'parquet', '--page-size', '20', '--concurrency', '4', '--compression', compression, '--quiet'];
    const c = await svcBuilt([...args, '--output-file', clean]);
    expect(c.code, c.stderr).toBe(0);

    // The first chunk is the first page (chunks are sized from the first page's IDs): a record in it.
    const planted = unfitAndStalled();
    const { bad } = planted;
    closedByClient.length = 0;
    const file = join(dir, 'failing.parquet');
    let r: Awaited<ReturnType<typeof svcBuilt>>;
    try {
      r = await svcBuilt([...args, '--output-file', file, '--resume']);
    } finally {
      planted.restore();
    }
    expect(r.code, r.stderr).toBe(1);
    expect(planted.arrived(), 'the other chunks were asked for').toBeGreaterThanOrEqual(4);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`record ${bad}: creator is`);
    expect(r.ms, `svc ended after ${Math.round(r.ms)} ms (${closedByClient.length} stalled requests closed by svc)`).toBeLessThan(STALL_MS / 2);
    expect(existsSync(file)).toBe(false);
    // The bad record is in the first page, so no row group was written: the run keeps no checkpoint and no partial
    // file (a run that wrote one keeps both: test/attack/s7-r2-export-nothing-kept.test.ts).
    expect(r.stderr).toMatch(/no record was written/);
    expect(existsSync(`${file}.svc-checkpoint.json`)).toBe(false);
    expect(existsSync(`${file}.svc-partial`)).toBe(false);

    const again = await svcBuilt([...args, '--output-file', file, '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(file).equals(readFileSync(clean)), 'resumed = clean').toBe(true);
  }, 40_000);

  it('in-process (no process exit to close the sockets): the stalled requests are aborted by svc itself, soon after it returns', async () => {
    const planted = unfitAndStalled();
    closedByClient.length = 0;
    try {
      const started = performance.now();
      const r = await run(['accounts', 'export', '--format', 'parquet', '--page-size', '20', '--concurrency', '4', '--output-file', join(tempDir(), 'p.parquet')], { env: ENV });
      expect(r.code, r.stderr).toBe(1);
      expect(planted.arrived()).toBeGreaterThanOrEqual(4);
      const stalled = Math.min(planted.arrived() - 3, 3);
      // Waits for the sandbox to see the stalled sockets closed, or for the stall to run out (the old behaviour).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, STALL_MS / 2);
        onClosed = () => void (closedByClient.length >= stalled && (clearTimeout(timer), resolve()));
        onClosed();
      });
      const took = performance.now() - started;
      expect(closedByClient.length, `after ${Math.round(took)} ms, ${closedByClient.length} of ${stalled} stalled requests closed by svc`).toBeGreaterThanOrEqual(stalled);
    } finally {
      onClosed = undefined;
      planted.restore();
    }
  }, 20_000);
});

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { deleteAccount, onRequest, seedTrickyAccounts, sha256File, tempDir } from '../export/support.js';

const { sandbox, run } = sandboxCli();
let ids: number[] = [];

beforeAll(() => {
  ids = seedTrickyAccounts(sandbox(), 2500);
});

const idsOf = (ndjson: string): number[] => ndjson.trimEnd().split('\n').map((l) => (JSON.parse(l) as { ID: number }).ID);

describe('svc <family> export on a flaky, changing service', () => {
  it('completes with every ID exactly once while a fifth of the requests fail', async () => {
    const expected = idsOf((await run(['accounts', 'export', '--format', 'ndjson'])).stdout);
    const s = sandbox();
    s.sandbox.hooks.setFaultRate(0.2, 7);
    try {
      const r = await run(['accounts', 'export', '--format', 'ndjson', '--page-size', '400', '--concurrency', '3', '--fields', 'ID']);
      expect(r.code).toBe(0);
      expect(idsOf(r.stdout)).toEqual(expected);
    } finally {
      s.sandbox.hooks.setFaultRate(0);
    }
  }, 60_000);

  it('writes every record present throughout exactly once while others are inserted and deleted', async () => {
    const s = sandbox();
    const gone = new Set<number>();
    const added: number[] = [];
    const insert = (): number => seedTrickyAccounts(s, 1)[0] ?? 0;
    const stop = onRequest(s, '/api/v1/accounts', (n) => {
      // Between pages: delete one record already written and one ahead, insert two.
      for (const id of [ids[n * 100 - 50], ids[ids.length - n * 7]]) {
        if (id !== undefined && !gone.has(id)) (deleteAccount(s, id), gone.add(id));
      }
      added.push(insert(), insert());
    });
    const r = await run(['accounts', 'export', '--format', 'ndjson', '--fields', 'ID', '--page-size', '150']);
    stop();
    expect(r.code).toBe(0);
    const seen = idsOf(r.stdout);
    expect(new Set(seen).size).toBe(seen.length);
    expect(gone.size).toBeGreaterThan(10);
    const throughout = ids.filter((id) => !gone.has(id));
    const seenSet = new Set(seen);
    expect(throughout.filter((id) => !seenSet.has(id))).toEqual([]);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});

describe('svc <family> export stopped by a signal (spawned, needs npm run build)', () => {
  it('exits 130 on SIGINT leaving the target untouched; --resume completes it byte-identically', async () => {
    const s = sandbox();
    const dir = tempDir();
    const reference = join(dir, 'ref.csv');
    expect((await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', reference])).code).toBe(0);
    const file = join(dir, 'nightly.csv');
    writeFileSync(file, 'old\n');
    s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { delayMs: 150 }, times: 1000 });
    const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const child = spawn(process.execPath, ['bin/svc.js', 'accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const checkpoint = `${file}.svc-checkpoint.json`;
    const rowsSoFar = (): number => (existsSync(checkpoint) ? (JSON.parse(readFileSync(checkpoint, 'utf8')) as { rows: number }).rows : 0);
    while (rowsSoFar() < 300 && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    s.sandbox.hooks.reset();
    expect(stderr).toMatch(/interrupted by SIGINT.*--resume/);
    expect(code).toBe(130);
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    expect(rowsSoFar()).toBeGreaterThanOrEqual(300);
    const resumed = await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file, '--resume']);
    expect(resumed.code).toBe(0);
    expect(sha256File(file)).toBe(sha256File(reference));
  }, 60_000);

  it('survives SIGKILL: the partial file may run past the last checkpoint, and --resume still gives identical bytes', async () => {
    const s = sandbox();
    const dir = tempDir();
    const reference = join(dir, 'ref.csv');
    expect((await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', reference])).code).toBe(0);
    const file = join(dir, 'nightly.csv');
    s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { delayMs: 100 }, times: 1000 });
    const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const child = spawn(process.execPath, ['bin/svc.js', 'accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file], { env, stdio: 'ignore' });
    const checkpoint = `${file}.svc-checkpoint.json`;
    const saved = (): { rows: number; bytes: number } | undefined => (existsSync(checkpoint) ? (JSON.parse(readFileSync(checkpoint, 'utf8')) as { rows: number; bytes: number }) : undefined);
    while ((saved()?.rows ?? 0) === 0 && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    // Half the checkpoint interval: a few more pages reach the partial file, none reach the checkpoint.
    await new Promise((r) => setTimeout(r, 500));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    s.sandbox.hooks.reset();
    const ck = saved();
    expect(ck?.rows).toBeGreaterThan(0);
    expect(statSync(`${file}.svc-partial`).size).toBeGreaterThan(ck?.bytes ?? Infinity);
    expect(existsSync(file)).toBe(false);
    const resumed = await run(['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file, '--resume']);
    expect(resumed.code).toBe(0);
    expect(sha256File(file)).toBe(sha256File(reference));
  }, 60_000);
});

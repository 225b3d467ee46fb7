import { spawn, type ChildProcess } from 'node:child_process';
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
  const args = (file: string): string[] => ['accounts', 'export', '--format', 'csv', '--page-size', '100', '--output-file', file];

  /** `svc accounts export` in a child process against the file's sandbox (bin/svc.js, so a signal reaches svc itself). */
  function spawnExport(argv: string[], env: Record<string, string> = {}): ChildProcess {
    const s = sandbox();
    const childEnv = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', ...env };
    return spawn(process.execPath, ['bin/svc.js', ...argv], { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  }

  /**
   * Resolves at the first accounts request the sandbox receives once `ready()`
   * holds, and stalls that request, so the export stays exactly there until it
   * is signalled: the test waits on the export's own requests, never on a clock.
   * Rejects if the export ends first.
   */
  function stallOnceReady(child: ChildProcess, ready: () => boolean): Promise<void> {
    const hooks = sandbox().sandbox.hooks;
    return new Promise((resolve, reject) => {
      hooks.onArrival = (_method, url) => {
        if (!url.includes('/api/v1/accounts') || !ready()) return;
        hooks.onArrival = undefined;
        hooks.failNext({ path: url, fault: { delayMs: 60_000 } }); // ends when the client goes away
        resolve();
      };
      child.once('exit', (code) => reject(new Error(`the export ended (exit ${code}) before the state the test waits for`)));
    });
  }

  const exited = (child: ChildProcess): Promise<number | null> =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('close', (c) => r(c)));
  const readCheckpoint = (file: string): { rows: number; bytes: number } | undefined => {
    const path = `${file}.svc-checkpoint.json`;
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { rows: number; bytes: number }) : undefined;
  };

  it('exits 130 on SIGINT leaving the target untouched; --resume completes it byte-identically', async () => {
    const s = sandbox();
    const dir = tempDir();
    const reference = join(dir, 'ref.csv');
    expect((await run(args(reference))).code).toBe(0);
    const file = join(dir, 'nightly.csv');
    writeFileSync(file, 'old\n');
    // Slow pages, so the checkpoint (saved once a second) is written while pages still arrive.
    s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { delayMs: 150 }, times: 1000 });
    const child = spawnExport(args(file));
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    await stallOnceReady(child, () => (readCheckpoint(file)?.rows ?? 0) >= 300);
    child.kill('SIGINT');
    const code = await exited(child);
    s.sandbox.hooks.reset();
    expect(stderr).toMatch(/interrupted by SIGINT.*--resume/);
    expect(code).toBe(130);
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    expect(readCheckpoint(file)?.rows).toBeGreaterThanOrEqual(300);
    const resumed = await run([...args(file), '--resume']);
    expect(resumed.code).toBe(0);
    expect(sha256File(file)).toBe(sha256File(reference));
  }, 60_000);

  it('survives SIGKILL: the partial file may run past the last checkpoint, and --resume still gives identical bytes', async () => {
    const dir = tempDir();
    const reference = join(dir, 'ref.csv');
    expect((await run(args(reference))).code).toBe(0);
    const file = join(dir, 'nightly.csv');
    const partial = `${file}.svc-partial`;
    // A run that saves its checkpoint after every page, killed once one holds rows.
    const first = spawnExport(args(file), { SVC_CHECKPOINT_EVERY: '1ms' });
    await stallOnceReady(first, () => (readCheckpoint(file)?.rows ?? 0) > 0);
    first.kill('SIGKILL');
    await exited(first);
    const ck = readCheckpoint(file);
    expect(ck?.rows).toBeGreaterThan(0);
    // Resumed by a run that saves none before it ends (every hour), killed once its partial file runs past the checkpoint.
    const second = spawnExport([...args(file), '--resume'], { SVC_CHECKPOINT_EVERY: '1h' });
    await stallOnceReady(second, () => existsSync(partial) && statSync(partial).size > (ck?.bytes ?? Infinity));
    second.kill('SIGKILL');
    await exited(second);
    sandbox().sandbox.hooks.reset();
    expect(readCheckpoint(file)).toEqual(ck);
    expect(statSync(partial).size).toBeGreaterThan(ck?.bytes ?? Infinity);
    expect(existsSync(file)).toBe(false);
    const resumed = await run([...args(file), '--resume']);
    expect(resumed.code).toBe(0);
    expect(sha256File(file)).toBe(sha256File(reference));
  }, 60_000);
});

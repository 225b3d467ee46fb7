/**
 * Attack on 6f91088 (sync --status names a sync running into the file): the
 * note must never claim a run that is not there. A lock is read without being
 * taken, so the process reading it never holds it: a lock naming the reader's
 * own pid (on this host) was left by a process that has ended and whose pid
 * the reader now has — every container's svc is pid 1, and a restarted
 * container keeps its hostname.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, svc, tempConfigDir } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';
import { signalProcesses } from '../watch/support.js';

const { sandbox, run } = sandboxCli();

/** Stalls the `at`-th query of accounts for a minute; resolves as it arrives. */
function stallAt(at: number): Promise<void> {
  const s = sandbox();
  let queries = 0;
  return new Promise<void>((resolve) => {
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !url.includes('/api/v1/accounts') || ++queries !== at) return;
      s.sandbox.hooks.failNext({ fault: { delayMs: 60_000 } });
      s.sandbox.hooks.onArrival = undefined;
      resolve();
    };
  });
}
const offline = (argv: string[]) => svc(argv, { env: { NO_COLOR: '1' } });

describe('attack today: sync --status and a lock naming its own pid', () => {
  it('a lock left by an ended run whose pid is now the reader\'s is not a sync running (no note, running null)', async () => {
    const target = join(tempDir(), 'reused-pid.sqlite');
    expect((await run(['accounts', 'sync', '--into', target])).code).toBe(0);
    // What a run killed with SIGKILL leaves, when its pid is the one --status now runs as (the in-process
    // runner's pid is this process's, as a container's is 1 run after run).
    writeFileSync(`${target}.svc-lock`, `${JSON.stringify({ pid: process.pid, host: hostname(), since: '2026-11-24T03:00:00.000Z', what: `svc accounts sync --into ${target}` })}\n`);
    const r = await offline(['sync', '--into', target, '--status', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect((JSON.parse(r.stdout) as Record<string, unknown>[])[0]).toMatchObject({ family: 'accounts', running: null });
  }, 30_000);

  it('the note and the JSON carry the lock\'s command, never the token the run was given (passes)', async () => {
    const target = join(tempDir(), 'secret.sqlite');
    expect((await run(['accounts', 'sync', '--into', target])).code).toBe(0);
    // A lock of another live process of this host (the vitest parent), as svc writes one: its command is svc's own text.
    writeFileSync(`${target}.svc-lock`, `${JSON.stringify({ pid: process.ppid, host: hostname(), since: '2026-11-24T03:00:00.000Z', what: `svc accounts sync --into ${target}` })}\n`);
    const token = 'tok-SECRET-1234567890';
    const r = await svc(['sync', '--into', target, '--status', '-o', 'json'], { env: { NO_COLOR: '1', SVC_TOKEN: token } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/is running \(pid \d+ \('svc accounts sync --into .*secret\.sqlite'/);
    expect(r.stdout + r.stderr).not.toContain(token);
  }, 30_000);

  it('a first sync running but not yet past its first page: --status names it, not "make one with svc accounts sync"', async () => {
    const target = join(tempDir(), 'starting.sqlite');
    const stalled = stallAt(1);
    const processes = signalProcesses();
    const syncing = run(['accounts', 'sync', '--into', target, '--page-size', '2', '--concurrency', '1'], { processes });
    await Promise.race([stalled, syncing.then((r) => Promise.reject(new Error(`the sync ended first: ${r.stderr}`)))]);
    try {
      const all = await offline(['sync', '--into', target, '--status', '-o', 'json']);
      expect(all.stderr).toMatch(/^svc: a sync into .*starting\.sqlite is running \(pid \d+/);
      const one = await offline(['accounts', 'sync', '--into', target, '--status', '-o', 'json']);
      // The run it would tell the user to start is the one running (and would be refused by its lock).
      expect(one.stderr).not.toMatch(/make one with svc accounts sync/);
      expect(one.stderr).toMatch(/^svc: a sync into .*starting\.sqlite is running \(pid \d+/);
    } finally {
      processes.raise('SIGINT');
      expect((await syncing).code).toBe(130);
    }
  }, 30_000);

  it('a DuckDB copy another process is syncing into: --status names that run (the built svc, held at a page)', async () => {
    const s = sandbox();
    const target = join(tempDir(), 'busy.duckdb');
    const stalled = stallAt(6);
    const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const child = spawn(process.execPath, ['bin/svc.js', 'accounts', 'sync', '--into', target, '--page-size', '2', '--concurrency', '1'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let childErr = '';
    child.stderr.on('data', (c: Buffer) => (childErr += c.toString()));
    const closed = new Promise<void>((r) => child.on('close', () => r()));
    try {
      await Promise.race([stalled, closed.then(() => Promise.reject(new Error(`the sync ended first: ${childErr}`)))]);
      const r = await offline(['sync', '--into', target, '--status', '-o', 'json']);
      expect(r.stderr).not.toMatch(/unexpected error/);
      expect(r.stderr).toMatch(new RegExp(`a sync into .*busy\\.duckdb is running \\(pid ${child.pid}`));
    } finally {
      child.kill('SIGKILL');
      await closed;
    }
  }, 30_000);
});

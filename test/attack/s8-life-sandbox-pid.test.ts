/**
 * s8-life: `svc sandbox` and the process its state file names, driven as a
 * user runs it (spawned `node bin/svc.js`, each test in a data dir of its own).
 *
 * - A sandbox killed (SIGKILL, a crash, a reboot) leaves `sandbox.json`
 *   behind, and its pid is later reused by an unrelated process of the user's
 *   (after a reboot, pids start over: any daemon may have it). `stop` and
 *   `reset` then SIGTERM (and 10 s later SIGKILL) that innocent process and
 *   report "sandbox stopped (pid N)"; `start` waits 20 s for it to answer
 *   health checks, then fails advising `svc sandbox stop` (which kills it).
 * - A state file with pid 0 or -1 (a hand edit, a damaged file): `status`
 *   advises `svc sandbox stop`, which sends SIGTERM to svc's own process group
 *   (pid 0) or, for -1, to every process the user may signal (as root: the
 *   whole machine). Only the safe halves are run here: `status` (signal 0
 *   only) and `stop` with pid 0 in a process group of its own.
 * - Two (here four) `svc sandbox start` on one data dir at once: all but one
 *   exit 1 "the sandbox exited while starting" though a sandbox runs fine,
 *   and the losers' detached children print the credentials (password,
 *   appsecret) into sandbox.log, which README says has secrets masked.
 *
 * Tests marked HELD pass today; the others fail until svc is fixed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, killSandboxesOf, sandboxHarness, sandboxProcessesOf, type SvcResult } from './s8-sandbox-support.js';

const h = sandboxHarness('s8-life-home-', 's8-life-sandbox-');
const { dirs, dataDir } = h;
const innocents: ChildProcess[] = [];

/** Runs svc to its end (killed after `killMs`); `detached` puts it in a process group of its own. */
const svc = (args: string[], opts: { killMs?: number; detached?: boolean } = {}): Promise<SvcResult> => h.svc(args, opts);

/** A process of the user's that has nothing to do with svc: it must outlive every svc command here. */
async function innocentProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up\\n"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
  innocents.push(child);
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  return child;
}

/**
 * A data dir whose sandbox was killed with SIGKILL (started for real, then killed), its state file left
 * naming `pid`, as after the pid was reused by another process.
 */
async function killedSandboxNaming(pid: number): Promise<{ dir: string; statePid: number }> {
  const dir = dataDir();
  const started = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json']);
  expect(started.code, started.stderr).toBe(0);
  const stateFile = join(dir, 'sandbox.json');
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number; port: number; origin: string };
  process.kill(state.pid, 'SIGKILL');
  while (isRunning(state.pid)) await new Promise((r) => setImmediate(r));
  // The sandbox is gone; its state file stays, and its pid now names someone else's process.
  writeFileSync(stateFile, JSON.stringify({ ...state, pid }, null, 2));
  return { dir, statePid: pid };
}

afterAll(async () => {
  for (const c of innocents) c.kill('SIGKILL');
  killSandboxesOf(dirs);
  h.cleanUp();
});

describe('a stale state file whose pid now belongs to another process', () => {
  it('svc sandbox stop leaves that process alone: exit 0, one line saying no sandbox runs (not "sandbox stopped (pid N)")', async () => {
    const innocent = await innocentProcess();
    const { dir } = await killedSandboxNaming(innocent.pid!);
    const r = await svc(['sandbox', 'stop', '--data-dir', dir]);
    expect(isRunning(innocent.pid!), `svc sandbox stop sent a signal to pid ${innocent.pid}, an unrelated process; it said: ${r.stderr}`).toBe(true);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain(`sandbox stopped (pid ${innocent.pid}`);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('svc sandbox reset leaves that process alone, and seeds the data dir afresh', async () => {
    const innocent = await innocentProcess();
    const { dir } = await killedSandboxNaming(innocent.pid!);
    const r = await svc(['sandbox', 'reset', '--data-dir', dir, '-o', 'json']);
    expect(isRunning(innocent.pid!), `svc sandbox reset sent a signal to pid ${innocent.pid}, an unrelated process; it said: ${r.stderr}`).toBe(true);
    expect(r.code, r.stderr).toBe(0);
    await svc(['sandbox', 'stop', '--data-dir', dir]);
  });

  it('svc sandbox start takes the data dir over at once (no 20 s wait, no exit 1 advising a stop that would kill the process)', async () => {
    const innocent = await innocentProcess();
    const { dir } = await killedSandboxNaming(innocent.pid!);
    const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json'], { killMs: 15_000 });
    expect(r.ms, `start took ${r.ms} ms: ${r.stderr}`).toBeLessThan(15_000);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ user: 'demo' });
    expect(isRunning(innocent.pid!)).toBe(true);
    const status = await svc(['sandbox', 'status', '--data-dir', dir, '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { pid: number }).pid).not.toBe(innocent.pid);
    await svc(['sandbox', 'stop', '--data-dir', dir]);
    expect(isRunning(innocent.pid!)).toBe(true);
  }, 30_000);

  it('svc sandbox status: exit 3, and it does not call that process "the sandbox process" nor advise a stop that would signal it', async () => {
    const innocent = await innocentProcess();
    const { dir } = await killedSandboxNaming(innocent.pid!);
    const r = await svc(['sandbox', 'status', '--data-dir', dir]);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain(`the sandbox process ${innocent.pid}`);
    expect(r.stderr).not.toMatch(/run 'svc sandbox stop/);
  });
});

describe('a state file naming pid 0 or -1 (hand-edited or damaged)', () => {
  function withStatePid(pid: number): string {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'sandbox.json'), JSON.stringify({ pid, https: false, startedAt: new Date().toISOString() }));
    return dir;
  }

  it.each([0, -1])('status with pid %i: exit 3, not "the sandbox process N … run \'svc sandbox stop\'" (that stop would signal a whole process group, or every process)', async (pid) => {
    const dir = withStatePid(pid);
    // status only probes (signal 0): safe to run.
    const r = await svc(['sandbox', 'status', '--data-dir', dir]);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain(`the sandbox process ${pid} `);
    expect(r.stderr).not.toMatch(/run 'svc sandbox stop/);
  });

  it('stop with pid 0 (svc in a process group of its own, so only svc itself can be hit): exit 0, nothing signalled', async () => {
    const dir = withStatePid(0);
    const r = await svc(['sandbox', 'stop', '--data-dir', dir], { detached: true, killMs: 15_000 });
    // Today: svc SIGTERMs its own process group ("svc: interrupted by SIGTERM", exit 130).
    // The fixer chose to say, in the same one line, why the state file was set aside (its pid) and that it was removed.
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 0,
      stderr: `no sandbox runs from ${dir}; nothing to stop (its state file ${join(dir, 'sandbox.json')} is damaged: it names pid 0, which no sandbox can have; nothing was signalled, and the file was removed)\n`,
    });
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
  });
});

describe('four svc sandbox start on one data dir at once', () => {
  it('each exits 0 with the one sandbox\'s URL and credentials (as a second start does after the first), one sandbox process runs, and the log holds no password', async () => {
    const dir = dataDir();
    const runs = await Promise.all(Array.from({ length: 4 }, () => svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json'])));
    const serving = sandboxProcessesOf(dir);
    const log = existsSync(join(dir, 'sandbox.log')) ? readFileSync(join(dir, 'sandbox.log'), 'utf8') : '';
    const credentials = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { demo: { users: { name: string; password: string }[]; applications: { appsecret: string }[] } };
    const password = credentials.demo.users.find((u) => u.name === 'demo')?.password ?? '';
    await svc(['sandbox', 'stop', '--data-dir', dir]);

    expect(serving).toHaveLength(1);
    expect(password.length).toBeGreaterThan(8);
    for (const secret of [password, ...credentials.demo.applications.map((a) => a.appsecret)]) expect(log, 'sandbox.log holds a credential').not.toContain(secret);
    expect(runs.map((r) => r.code), runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 0, 0]);
    const urls = new Set(runs.map((r) => (JSON.parse(r.stdout) as { instanceUrl: string }).instanceUrl));
    expect(urls.size).toBe(1);
  }, 40_000);
});

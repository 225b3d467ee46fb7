/**
 * `svc sandbox` against what a data dir's state can be, in-process: a state
 * file whose pid is now another process (never signalled, never called "the
 * sandbox"), one naming pid 0, -1 or no integer, a data dir that is a file or
 * cannot be made, an empty --data-dir, a damaged database or credentials file,
 * and two commands at once on one data dir (its lock). The process control
 * records signals instead of sending them, so nothing here can hit a process.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ProcessControl } from '../../../src/cli/deps.js';
import type { SandboxIo } from '../../../src/commands/sandbox/io.js';
import { lockDataDir } from '../../../src/commands/sandbox/lock.js';
import { ensureDataDir, processStartOf, sandboxFiles, writeState, type SandboxState } from '../../../src/commands/sandbox/state.js';
import { svc, testDeps, testProcesses } from '../../helpers/cli.js';
import { processControl } from '../../../src/cli/main.js';
import { freshDataDir, serveDataDir, type Serving } from './serving.js';

const home = mkdtempSync(join(tmpdir(), 'svc-sandbox-lifecycle-home-'));
const env = { HOME: home };
const innocents: ChildProcess[] = [];
const open: Serving[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const c of innocents) c.kill('SIGKILL');
});

/** Process control that probes for real but only records the signals it is asked to send. */
function recordingProcesses(): ProcessControl & { signals: [number, string][]; handlers: Map<string, () => void> } {
  const signals: [number, string][] = [];
  const handlers = new Map<string, () => void>();
  const base = testProcesses();
  return {
    ...base,
    signals,
    handlers,
    kill: (pid, signal) => {
      if (signal !== 0) {
        signals.push([pid, signal]);
        return false;
      }
      return base.kill(pid, 0);
    },
    onceSignal: (signal, fn) => void handlers.set(signal, fn),
  };
}

/** A process of the user's that has nothing to do with svc. */
async function innocentProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  innocents.push(child);
  await new Promise<void>((resolve) => child.once('spawn', () => resolve()));
  return child.pid ?? 0;
}

/** A data dir whose sandbox is gone, its state file (as that sandbox wrote it) now naming `pid`. */
async function staleDataDir(pid: number, legacy = false): Promise<{ dataDir: string; state: SandboxState }> {
  const dataDir = freshDataDir();
  const serving = await serveDataDir(dataDir);
  await serving.close();
  const { token, processStart, ...older } = serving.state;
  // An older svc recorded neither; its sandbox started long before the process that has its pid now.
  const state = { ...(legacy ? { ...older, startedAt: new Date(Date.now() - 3_600_000).toISOString() } : { ...older, token, processStart }), pid };
  writeState(dataDir, state);
  return { dataDir, state };
}

describe('a state file whose pid is another process now', () => {
  it.each([
    ['recorded with its start time and token', false, 'is not its sandbox but another process now'],
    ['recorded by an older svc (neither: its start time against startedAt tells)', true, 'is not its sandbox but another process now'],
  ])('%s: status exits 3 without calling it the sandbox; stop signals nothing, says so in one line and removes the file', async (_what, legacy, why) => {
    const pid = await innocentProcess();
    const { dataDir } = await staleDataDir(pid, legacy);
    const status = await svc(['sandbox', 'status', '--data-dir', dataDir], { env });
    expect(status).toEqual({
      code: 3,
      stdout: '',
      stderr: `svc: no sandbox runs from ${dataDir} (its state file names pid ${pid}, which ${why}); start one with 'svc sandbox start --data-dir ${dataDir}'\n`,
    });
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(true);
    const processes = recordingProcesses();
    const stop = await svc(['sandbox', 'stop', '--data-dir', dataDir], { env, processes });
    expect(processes.signals).toEqual([]);
    expect(stop).toEqual({
      code: 0,
      stdout: '',
      stderr: `no sandbox runs from ${dataDir}; nothing to stop (its state file names pid ${pid}, which ${why}; nothing was signalled, and the file was removed)\n`,
    });
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
  });

  it('start --foreground takes the data dir over at once, records its start time and token, and the health route answers with the token', async () => {
    const pid = await innocentProcess();
    const { dataDir } = await staleDataDir(pid);
    const processes = recordingProcesses();
    const run = svc(['sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dataDir, '-o', 'json'], { env, processes, configDir: mkdtempSync(join(tmpdir(), 'svc-cfg-')) });
    let state: SandboxState | undefined;
    // The stale state has an origin too: wait for this process's own.
    while (!(state?.origin && state.pid === process.pid)) {
      await new Promise((r) => setImmediate(r));
      try {
        state = JSON.parse(readFileSync(sandboxFiles(dataDir).state, 'utf8')) as SandboxState;
      } catch {
        state = undefined;
      }
    }
    expect(state.processStart).toBe(processStartOf(process.pid));
    const health = (await (await fetch(`${state.origin}/_sandbox/health`)).json()) as { token?: string };
    expect(health.token).toBe(state.token);
    expect(state.token).toMatch(/^[0-9a-f]{32}$/);
    while (!processes.handlers.has('SIGTERM')) await new Promise((r) => setImmediate(r));
    processes.handlers.get('SIGTERM')?.();
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`its state file names pid ${pid}, which is not its sandbox but another process now; the file was removed, and a new sandbox starts\n`);
    expect(JSON.parse(r.stdout)).toMatchObject({ user: 'demo', instanceUrl: state.instanceUrl });
    expect(processes.signals).toEqual([]);
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
    expect(existsSync(sandboxFiles(dataDir).lock)).toBe(false);
  });
});

describe('a state file naming no process a sandbox can be', () => {
  it.each([0, -1, 1, 2.5, '4242', null])('pid %j: status exits 3 calling it damaged; stop signals nothing and removes it', async (pid) => {
    const dataDir = freshDataDir();
    ensureDataDir(dataDir);
    writeFileSync(sandboxFiles(dataDir).state, JSON.stringify({ pid, https: false, startedAt: new Date().toISOString() }));
    const why = `its state file ${sandboxFiles(dataDir).state} is damaged: it names pid ${JSON.stringify(pid)}, which no sandbox can have`;
    expect(await svc(['sandbox', 'status', '--data-dir', dataDir], { env })).toEqual({
      code: 3,
      stdout: '',
      stderr: `svc: no sandbox runs from ${dataDir} (${why}); start one with 'svc sandbox start --data-dir ${dataDir}'\n`,
    });
    const processes = recordingProcesses();
    expect(await svc(['sandbox', 'stop', '--data-dir', dataDir], { env, processes })).toEqual({
      code: 0,
      stdout: '',
      stderr: `no sandbox runs from ${dataDir}; nothing to stop (${why}; nothing was signalled, and the file was removed)\n`,
    });
    expect(processes.signals).toEqual([]);
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
  });

  it('a state file that is not JSON is damaged too', async () => {
    const dataDir = freshDataDir();
    ensureDataDir(dataDir);
    writeFileSync(sandboxFiles(dataDir).state, '{"pid": 12');
    const r = await svc(['sandbox', 'stop', '--data-dir', dataDir], { env, processes: recordingProcesses() });
    expect(r.stderr).toBe(`no sandbox runs from ${dataDir}; nothing to stop (its state file ${sandboxFiles(dataDir).state} is damaged: it is not JSON; nothing was signalled, and the file was removed)\n`);
  });
});

describe('--data-dir', () => {
  it.each(['start', 'stop', 'status', 'reset'])("'' is exit 2 for %s, before anything is looked at", async (verb) => {
    expect(await svc(['sandbox', verb, '--data-dir', ''], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: --data-dir is empty; give a directory, e.g. --data-dir ./sandbox-data (leave the option out for the default one)\n',
    });
    expect(existsSync(join(home, '.local'))).toBe(false);
  });

  it('a regular file, or a path below one: start and reset exit 1 in one line naming it; stop exits 0, status 3', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-sandbox-file-')), 'notes.txt');
    writeFileSync(file, 'my notes\n');
    for (const verb of ['start', 'reset']) {
      expect(await svc(['sandbox', verb, '--data-dir', file], { env })).toEqual({
        code: 1,
        stdout: '',
        stderr: `svc: the sandbox data dir ${file} is not a directory; choose a directory with --data-dir (it is made when missing)\n`,
      });
    }
    const below = join(file, 'data');
    expect((await svc(['sandbox', 'start', '--data-dir', below], { env })).stderr).toBe(
      `svc: the sandbox data dir ${below} is not a directory (${file} is a file); choose a directory with --data-dir (it is made when missing)\n`,
    );
    for (const dir of [file, below]) {
      expect(await svc(['sandbox', 'stop', '--data-dir', dir], { env })).toEqual({ code: 0, stdout: '', stderr: `no sandbox runs from ${dir} (it is not a directory); nothing to stop\n` });
      // Not "start one with 'svc sandbox start --data-dir FILE'": that start fails.
      expect(await svc(['sandbox', 'status', '--data-dir', dir], { env })).toEqual({
        code: 3,
        stdout: '',
        stderr: `svc: no sandbox runs from ${dir}: it is not a directory; choose another with --data-dir\n`,
      });
    }
    expect(readFileSync(file, 'utf8')).toBe('my notes\n');
  });

  it('where no folder may be made (/proc, where a recursive mkdir would loop for ever): one line at once', async () => {
    if (!existsSync('/proc/self')) return;
    const r = await svc(['sandbox', 'start', '--data-dir', '/proc/svc-sandbox-test/data'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: cannot make the sandbox data dir \/proc\/svc-sandbox-test\/data: .*; choose another with --data-dir\n$/);
  });

  it('a stop of a data dir that does not exist makes nothing', async () => {
    const dataDir = freshDataDir();
    expect((await svc(['sandbox', 'stop', '--data-dir', dataDir], { env })).code).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('a damaged database or credentials file', () => {
  /** A data dir seeded (and not running), by reset. */
  async function seeded(): Promise<string> {
    const dataDir = freshDataDir();
    const r = await svc(['sandbox', 'reset', '--data-dir', dataDir, '--seed-accounts', '2'], { env });
    expect(r.code, r.stderr).toBe(0);
    return dataDir;
  }

  async function foreground(dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return svc(['sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dataDir], { env, processes: recordingProcesses() });
  }

  it.each([
    ['garbage in place of the database', (d: string) => writeFileSync(sandboxFiles(d).database, 'not a database\n'.repeat(300)), 'file is not a database'],
    ['the database cut short', (d: string) => truncateSync(sandboxFiles(d).database, Math.floor(statSync(sandboxFiles(d).database).size / 2)), 'database disk image is malformed'],
  ])('%s: exit 1, one line naming it and the reset of this data dir; nothing left behind', async (_what, damage, why) => {
    const dataDir = await seeded();
    damage(dataDir);
    expect(await foreground(dataDir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc: ${sandboxFiles(dataDir).database} is damaged (${why}); wipe the tenant and seed it again with 'svc sandbox reset --data-dir ${dataDir}'\n`,
    });
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
    expect(existsSync(sandboxFiles(dataDir).lock)).toBe(false);
  });

  it('credentials cut short, or emptied: exit 1 naming the file and the reset of this data dir (the sandbox does not run)', async () => {
    const dataDir = await seeded();
    const file = sandboxFiles(dataDir).credentials;
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 40));
    expect(await foreground(dataDir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc: ${file} is damaged (not JSON); wipe the tenant and seed it again with 'svc sandbox reset --data-dir ${dataDir}'\n`,
    });
    writeFileSync(file, '{}\n');
    expect(await foreground(dataDir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc: the demo user or the svc-cli application is missing from ${file}; run 'svc sandbox reset --data-dir ${dataDir}' to wipe the tenant and seed it again\n`,
    });
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
  });
});

describe("the data dir's lock", () => {
  it('a second command waits for the first (saying so once), then goes on', async () => {
    const dataDir = freshDataDir();
    mkdirSync(dataDir, { recursive: true });
    const notes: string[] = [];
    const deps = testDeps({ env });
    const io: SandboxIo = { deps, proc: testProcesses(), format: 'table', show: async () => undefined, note: (l) => void notes.push(l) };
    const first = await lockDataDir(dataDir, 'start', io);
    const second = lockDataDir(dataDir, 'stop', io);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(new RegExp(`^waiting for pid ${process.pid} \\('svc sandbox start', since .*\\), which is using ${dataDir}$`));
    first.release();
    const held = await second;
    expect(held.isHeld()).toBe(true);
    held.release();
    expect(existsSync(sandboxFiles(dataDir).lock)).toBe(false);
  });
});

/** When this process started, as the ISO time an older svc recorded as `startedAt` (from /proc). */
function ownStartedAt(): string {
  const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
  const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  return new Date(btime * 1000 + ticks * 10 + 500).toISOString();
}

describe('a state file of an older svc (no token, no processStart)', () => {
  it.skipIf(!existsSync('/proc/stat'))("naming an unrelated process while another data dir's sandbox answers on its port: status 3, stop signals nothing", async () => {
    const other = await serveDataDir(freshDataDir());
    open.push(other);
    const pid = await innocentProcess();
    const dataDir = freshDataDir();
    ensureDataDir(dataDir);
    const { origin, port, instanceUrl } = other.state;
    writeState(dataDir, { pid, origin, port, instanceUrl, https: false, startedAt: '2026-01-02T03:04:05.000Z' });
    const why = `its state file names pid ${pid}, which is not its sandbox but another process now`;
    expect(await svc(['sandbox', 'status', '--data-dir', dataDir], { env })).toEqual({
      code: 3,
      stdout: '',
      stderr: `svc: no sandbox runs from ${dataDir} (${why}); start one with 'svc sandbox start --data-dir ${dataDir}'\n`,
    });
    const processes = recordingProcesses();
    expect(await svc(['sandbox', 'stop', '--data-dir', dataDir], { env, processes })).toEqual({
      code: 0,
      stdout: '',
      stderr: `no sandbox runs from ${dataDir}; nothing to stop (${why}; nothing was signalled, and the file was removed)\n`,
    });
    expect(processes.signals).toEqual([]);
  });

  it.skipIf(!existsSync('/proc/stat'))('naming the sandbox it started (its start time matches startedAt): status calls it running', async () => {
    const dataDir = freshDataDir();
    const serving = await serveDataDir(dataDir);
    open.push(serving);
    const { token: _token, processStart: _start, ...older } = serving.state;
    writeState(dataDir, { ...older, startedAt: ownStartedAt() });
    const r = await svc(['sandbox', 'status', '--data-dir', dataDir, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ running: true, pid: process.pid });
  });
});

describe('sandbox.json that is not a regular file', () => {
  it('a directory with files in it: stop exits 0 in one line saying it cannot be removed; start refuses in one line; an empty one is removed', async () => {
    const dataDir = freshDataDir();
    ensureDataDir(dataDir);
    const file = sandboxFiles(dataDir).state;
    mkdirSync(join(file, 'keep'), { recursive: true });
    const processes = recordingProcesses();
    const stop = await svc(['sandbox', 'stop', '--data-dir', dataDir], { env, processes });
    expect(stop.code).toBe(0);
    expect(stop.stderr).toMatch(
      new RegExp(`^no sandbox runs from ${dataDir}; nothing to stop \\(its state file ${file} is damaged: it is a directory, not a file; nothing was signalled, and it cannot be removed: .*\\(ENOTEMPTY\\); remove it\\)\n$`),
    );
    const start = await svc(['sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dataDir], { env, processes });
    expect(start.code).toBe(1);
    expect(start.stderr).toMatch(new RegExp(`^svc: cannot start a sandbox from ${dataDir}: its state file ${file} is damaged: it is a directory, not a file, and it cannot be removed: .*; remove it\n$`));
    expect(start.stderr).not.toContain('the file was removed');
    expect(existsSync(sandboxFiles(dataDir).lock)).toBe(false);
    execFileSync('rmdir', [join(file, 'keep')]);
    expect(await svc(['sandbox', 'stop', '--data-dir', dataDir], { env, processes })).toMatchObject({ code: 0 });
    expect(existsSync(file)).toBe(false);
    expect(processes.signals).toEqual([]);
  });

  it('a FIFO nobody writes: status and stop answer at once (exit 3 and 0), never blocking in the read', async () => {
    const dataDir = freshDataDir();
    ensureDataDir(dataDir);
    execFileSync('mkfifo', [sandboxFiles(dataDir).state]);
    const why = `its state file ${sandboxFiles(dataDir).state} is damaged: it is a FIFO, not a file`;
    expect(await svc(['sandbox', 'status', '--data-dir', dataDir], { env })).toMatchObject({ code: 3, stderr: `svc: no sandbox runs from ${dataDir} (${why}); start one with 'svc sandbox start --data-dir ${dataDir}'\n` });
    expect(await svc(['sandbox', 'stop', '--data-dir', dataDir], { env, processes: recordingProcesses() })).toMatchObject({ code: 0 });
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
  });

  it('larger than any state svc writes: damaged, not read', async () => {
    const dataDir = freshDataDir();
    ensureDataDir(dataDir);
    writeFileSync(sandboxFiles(dataDir).state, `{"pid": ${process.pid}, "pad": "${'x'.repeat(100_000)}"}`);
    expect((await svc(['sandbox', 'status', '--data-dir', dataDir], { env })).stderr).toContain('is damaged: it is larger than any state svc writes');
  });
});

describe('stop where sandbox.lock cannot be written', () => {
  it.skipIf(!existsSync('/proc/sys/kernel'))('a data dir where nothing can be made (/proc/sys/kernel): exit 0, nothing to stop, nothing about the lock', async () => {
    expect(await svc(['sandbox', 'stop', '--data-dir', '/proc/sys/kernel'], { env })).toEqual({ code: 0, stdout: '', stderr: 'no sandbox runs from /proc/sys/kernel; nothing to stop\n' });
  });
});

describe('a sandbox that is starting (its process runs and is ours; it listens not yet)', () => {
  it('status exits 3 saying it is starting, without advising a stop that would cancel the start', async () => {
    const dataDir = freshDataDir();
    ensureDataDir(dataDir);
    const processStart = processStartOf(process.pid);
    writeState(dataDir, { pid: process.pid, https: false, startedAt: new Date().toISOString(), token: 'a'.repeat(32), ...(processStart ? { processStart } : {}) });
    const r = await svc(['sandbox', 'status', '--data-dir', dataDir], { env });
    if (!processStart) return; // without /proc a sandbox that does not answer yet cannot be told from another process
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr: `svc: the sandbox of ${dataDir} is starting (pid ${process.pid}; seeding a large tenant takes a while); see ${sandboxFiles(dataDir).log}\n`,
    });
  });

  it('Ctrl-C of start while the child seeds: the child is ended, the lock let go, one line, exit 130', async () => {
    const dataDir = freshDataDir();
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    innocents.push(child);
    await new Promise<void>((resolve) => child.once('spawn', () => resolve()));
    const real = processControl();
    const signals: [number, string][] = [];
    const handlers = new Map<string, () => void>();
    const processes: ProcessControl = {
      ...testProcesses(),
      // The child seeds (its state names it, no address yet) until the test presses Ctrl-C.
      spawnDetached: async () => {
        writeState(dataDir, { pid: child.pid!, https: false, startedAt: new Date().toISOString(), token: 'b'.repeat(32) });
        return child.pid!;
      },
      kill: (pid, signal) => {
        if (signal !== 0) signals.push([pid, signal]);
        // Only the child this start spawned is ever signalled for real.
        return pid === child.pid || signal === 0 ? real.kill(pid, signal) : false;
      },
      onceSignal: (signal, fn) => void handlers.set(signal, fn),
    };
    const run = svc(['sandbox', 'start', '--port', '0', '--data-dir', dataDir], { env, processes });
    while (!existsSync(sandboxFiles(dataDir).state) || !handlers.has('SIGINT')) await new Promise((r) => setImmediate(r));
    handlers.get('SIGINT')?.();
    const r = await run;
    expect(r).toEqual({ code: 130, stdout: '', stderr: 'svc: interrupted by SIGINT; stopped the sandbox that was starting\n' });
    expect(signals).toEqual([[child.pid, 'SIGTERM']]);
    expect(real.kill(child.pid!, 0)).toBe(false);
    expect(existsSync(sandboxFiles(dataDir).lock)).toBe(false);
    expect(existsSync(sandboxFiles(dataDir).state)).toBe(false);
  });
});

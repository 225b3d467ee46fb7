/**
 * Shared helpers of the s8 `svc sandbox` lifecycle attacks
 * (s8-life-sandbox-data, s8-life-sandbox-pid, s8-r2-life-sandbox): running the
 * built `node bin/svc.js` as a user does, with a HOME of the test file's own,
 * in data dirs of their own, and finding (and killing) the sandbox processes
 * a test left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './s7-support.js';

/** How one svc command ended: exit code or signal, its output, and how long it ran. */
export interface SvcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Options of one svc command. */
export interface SvcOptions {
  /** SIGKILL it after this many ms (default 30 s). */
  killMs?: number;
  /** Its working directory (default the repository's root). */
  cwd?: string;
  /** Put it in a process group of its own (default false). */
  detached?: boolean;
}

/** A running svc command: the child, a promise of its end, and the stderr it wrote so far. */
export interface SvcRun {
  child: ChildProcess;
  ended: Promise<SvcResult>;
  stderr: () => string;
}

/** One test file's sandbox harness: its HOME, the data dirs it made, and svc run with that HOME. */
export interface SandboxHarness {
  /** A temporary HOME, so the default data dir is never the user's. */
  home: string;
  /** Every data dir made by `dataDir` (tests may push their own); each one's parent is removed by `cleanUp`. */
  dirs: string[];
  /** A fresh data dir (not yet made) in a temporary directory of its own, recorded in `dirs`. */
  dataDir(): string;
  /** The environment svc runs in: PATH, the harness's HOME and config dir, no keychain, no colour. */
  env(): NodeJS.ProcessEnv;
  /** Starts `node bin/svc.js …args` and returns at once. */
  start(args: string[], opts?: SvcOptions): SvcRun;
  /** Runs `node bin/svc.js …args` to its end. */
  svc(args: string[], opts?: SvcOptions): Promise<SvcResult>;
  /** Removes every recorded data dir's parent, then HOME (kill what runs there first: `killSandboxesOf`). */
  cleanUp(): void;
}

/**
 * Makes a harness whose HOME is a new temporary directory named `homePrefix…` and whose data dirs are
 * `<tmp>/<dataPrefix…>/data`.
 */
export function sandboxHarness(homePrefix: string, dataPrefix: string): SandboxHarness {
  const home = mkdtempSync(join(tmpdir(), homePrefix));
  const dirs: string[] = [];
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '', HOME: home, SVC_CONFIG_DIR: join(home, 'config'), SVC_KEYCHAIN_SERVICE: `svc-test-none-${process.pid}`, NO_COLOR: '1' });
  const start = (args: string[], opts: SvcOptions = {}): SvcRun => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], {
      cwd: opts.cwd ?? root,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: opts.detached ?? false,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.killMs ?? 30_000);
    const ended = new Promise<SvcResult>((resolve) =>
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
      }),
    );
    return { child, ended, stderr: () => stderr };
  };
  return {
    home,
    dirs,
    dataDir: () => {
      const dir = join(mkdtempSync(join(tmpdir(), dataPrefix)), 'data');
      dirs.push(dir);
      return dir;
    },
    env,
    start,
    svc: (args, opts) => start(args, opts).ended,
    cleanUp: () => {
      for (const dir of dirs) rmSync(join(dir, '..'), { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Whether `pid` names a live process (a zombie is not one). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

/** Sandbox processes serving `dir` (their command line names it). */
export function sandboxProcessesOf(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmd.includes('--foreground') && cmd.includes(dir) && isRunning(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** SIGKILLs every sandbox process serving one of `dirs` (none where there is no /proc). */
export function killSandboxesOf(dirs: readonly string[]): void {
  if (!existsSync('/proc')) return;
  for (const dir of dirs) {
    for (const pid of sandboxProcessesOf(dir)) process.kill(pid, 'SIGKILL');
  }
}

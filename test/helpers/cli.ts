import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { createKeychainStore } from '../../src/auth/keychain.js';
import type { CredentialStore } from '../../src/auth/store.js';
import type { Deps, InStream, ProcessControl } from '../../src/cli/deps.js';
import { processControl } from '../../src/cli/main.js';
import { run } from '../../src/cli/run.js';
import { Capture } from './deps.js';
import { useTestSandbox, type TestSandbox } from './sandbox.js';

export interface CliOptions {
  tty?: boolean;
  env?: Record<string, string | undefined>;
  /** Reused across runs, like a user's ~/.config/svc. */
  configDir: string;
  /** What the user types or pipes in, chunk by chunk. */
  stdin?: string[];
  keychain?: () => CredentialStore;
  /** Standard output; default a captured pipe. */
  stdout?: Capture;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** setRawMode calls, in order (hidden prompts turn echo off and on). */
  rawMode: boolean[];
}

/** A fresh config dir for one test. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-cli-config-'));
}

/** A real keychain under a service of the test's own, never the user's "svc". */
export function testKeychain(): () => CredentialStore {
  const service = `svc-test-${randomBytes(4).toString('hex')}`;
  return () => createKeychainStore({ service });
}

/**
 * This process as svc sees it in a test: its pid and a real liveness probe
 * (so an export's lock can tell a killed export from a running one), but no
 * signal handlers on the test runner and no detached children.
 */
export function testProcesses(): ProcessControl {
  const real = processControl();
  return {
    pid: real.pid,
    execPath: real.execPath,
    kill: (pid, signal) => (signal === 0 ? real.kill(pid, 0) : false),
    onceSignal: () => undefined,
    spawnDetached: () => Promise.reject(new Error('tests start no detached processes in-process')),
  };
}

/** Runs svc in-process with scripted stdin, a persistent config dir and a test keychain. */
export async function cli(argv: string[], opts: CliOptions): Promise<CliRun> {
  const tty = opts.tty ?? false;
  const rawMode: boolean[] = [];
  const chunks = opts.stdin ?? [];
  const stdin: InStream = {
    isTTY: tty,
    setRawMode: tty ? (m: boolean) => rawMode.push(m) : undefined,
    async *[Symbol.asyncIterator]() {
      while (chunks.length > 0) yield chunks.shift() ?? '';
    },
  };
  const stdout = opts.stdout ?? new Capture(tty, tty ? 120 : undefined);
  const stderr = new Capture(tty, tty ? 120 : undefined);
  const deps: Deps = {
    stdout,
    stderr,
    stdin,
    env: { ...opts.env },
    now: () => Date.now(),
    configDir: opts.configDir,
    processes: testProcesses(),
    ...(opts.keychain ? { keychain: opts.keychain } : {}),
  };
  const code = await run(argv, deps);
  return { code, stdout: stdout.text, stderr: stderr.text, rawMode };
}

/**
 * For a test file driving the CLI against one in-memory sandbox: starts it
 * before the tests, records requests afresh for each test, closes it after.
 * `run` signs in as a seeded user through SVC_URL and SVC_TOKEN.
 */
export function sandboxCli(): {
  readonly sandbox: () => TestSandbox;
  run(argv: string[], o?: { user?: string; tty?: boolean; stdin?: string[]; stdout?: Capture }): Promise<CliRun>;
} {
  const sandbox = useTestSandbox({ record: true });
  let configDir = '';
  beforeAll(() => {
    configDir = tempConfigDir();
  });
  return {
    sandbox,
    run: (argv, o = {}) =>
      cli(argv, { configDir, tty: o.tty ?? false, stdin: o.stdin ?? [], ...(o.stdout ? { stdout: o.stdout } : {}), env: { SVC_URL: sandbox().instanceUrl, SVC_TOKEN: sandbox().token(o.user ?? 'demo'), NO_COLOR: '1' } }),
  };
}

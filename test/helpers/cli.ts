/**
 * The one in-process runner: `svc(argv, options)` runs the real CLI through
 * `run(argv, deps)` with captured streams, scripted stdin, a config dir of the
 * test's own, a test keychain when asked, and a process control that probes
 * but never signals or spawns. `sandboxCli()` adds a sandbox of the test
 * file's own and signs in to it. (`cli` is the same function under its older
 * name; test/helpers/deps.ts re-exports what tests imported from there.)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { createKeychainStore } from '../../src/auth/keychain.js';
import type { CredentialStore } from '../../src/auth/store.js';
import type { Deps, ProcessControl } from '../../src/cli/deps.js';
import { processControl } from '../../src/cli/main.js';
import { run } from '../../src/cli/run.js';
import type { InStream, OutStream } from '../../src/output/io.js';
import { useTestSandbox, type FileSandbox, type TestSandboxOptions } from './sandbox.js';

/** A captured output stream that looks like a terminal or a pipe. */
export class Capture implements OutStream {
  text = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {}
  private readonly decoder = new TextDecoder();
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return true;
  }
}

export interface RunOptions {
  /** stdout, stderr and stdin are terminals (default false: pipes, as in cron). */
  tty?: boolean;
  /** Terminal width when `tty` (default 120). */
  columns?: number;
  env?: Record<string, string | undefined>;
  /** Reused across runs, like a user's ~/.config/svc; default a fresh temporary one per run. */
  configDir?: string;
  /** What the user types or pipes in, chunk by chunk (default nothing). */
  stdin?: string[];
  /** The keychain svc uses: give a test service of its own (testKeychain), never the user's "svc". */
  keychain?: () => CredentialStore;
  /** Standard output; default a captured pipe (or terminal, with `tty`). */
  stdout?: Capture;
  /** The clock (default the real one, which a sandbox also uses). */
  now?: () => number;
  /** The clock durations are measured on (default performance.now()); a test moving `now` to stand for time passing moves this too. */
  monotonic?: () => number;
  /** Process control (default testProcesses()); false for none, as where svc cannot control processes. */
  processes?: ProcessControl | false;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** setRawMode calls, in order (hidden prompts turn echo off and on); not enumerable, so toEqual ignores it. */
  readonly rawMode: boolean[];
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
    platform: real.platform,
    // No browser in-process: a test that signs in with --web gives its own (see test/helpers/browser-flow.ts).
    spawnQuiet: async () => false,
  };
}

/** Deps for one in-process run, and what it recorded: captured streams and raw-mode calls. */
export function testDeps(opts: RunOptions = {}): Deps & { stdout: Capture; stderr: Capture; rawMode: boolean[] } {
  const tty = opts.tty ?? false;
  const columns = tty ? (opts.columns ?? 120) : undefined;
  const rawMode: boolean[] = [];
  const chunks = [...(opts.stdin ?? [])];
  const stdin: InStream = {
    isTTY: tty,
    setRawMode: tty ? (m: boolean) => rawMode.push(m) : undefined,
    async *[Symbol.asyncIterator]() {
      while (chunks.length > 0) yield chunks.shift() ?? '';
    },
  };
  const processes = opts.processes === false ? undefined : (opts.processes ?? testProcesses());
  return {
    stdout: opts.stdout ?? new Capture(tty, columns),
    stderr: new Capture(tty, columns),
    stdin,
    env: { ...opts.env },
    now: opts.now ?? (() => Date.now()),
    ...(opts.monotonic ? { monotonic: opts.monotonic } : {}),
    configDir: opts.configDir ?? tempConfigDir(),
    rawMode,
    ...(processes ? { processes } : {}),
    ...(opts.keychain ? { keychain: opts.keychain } : {}),
  };
}

/** Runs svc in-process as a user would type it; resolves to its exit code and output. */
export async function svc(argv: string[], opts: RunOptions = {}): Promise<CliRun> {
  const deps = testDeps(opts);
  const code = await run(argv, deps);
  const result = { code, stdout: deps.stdout.text, stderr: deps.stderr.text };
  // Not enumerable: `expect(r).toEqual({ code, stdout, stderr })` compares what the user sees.
  return Object.defineProperty(result, 'rawMode', { value: deps.rawMode, enumerable: false }) as CliRun;
}

/** The same runner under the name older tests use. */
export const cli = svc;

export interface SandboxRunOptions extends Omit<RunOptions, 'env' | 'configDir'> {
  /** The seeded user whose token is sent (default demo). */
  user?: string;
  /** More environment (SVC_URL, SVC_TOKEN and NO_COLOR are set). */
  env?: Record<string, string | undefined>;
}

/**
 * For a test file driving the CLI against a sandbox of its own (see
 * useTestSandbox: started before the file's tests, requests recorded afresh for
 * each test, closed after). `run` signs in as a seeded user through SVC_URL and
 * SVC_TOKEN, with one config dir for the file.
 */
export function sandboxCli(opts: TestSandboxOptions = {}): {
  readonly sandbox: FileSandbox;
  run(argv: string[], o?: SandboxRunOptions): Promise<CliRun>;
} {
  const sandbox = useTestSandbox({ record: true, ...opts });
  let configDir = '';
  beforeAll(() => {
    configDir = tempConfigDir();
  });
  return {
    sandbox,
    run: (argv, o = {}) => {
      const { user, env, ...rest } = o;
      return svc(argv, { ...rest, configDir, env: { SVC_URL: sandbox.instanceUrl, SVC_TOKEN: sandbox.token(user ?? 'demo'), NO_COLOR: '1', ...env } });
    },
  };
}

/**
 * Shared by the s9 bulk-write attacks (test/attack/s9-bulk-*.test.ts): the
 * built svc (`node bin/svc.js`) spawned against a test sandbox, optionally
 * inside a mount namespace of its own (`unshare -m`) where a small tmpfs can
 * stand for a full disk, and a TCP proxy that can hold back the answers the
 * sandbox already gave (a slow network), releasing them when the test says.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';

/** The repository's root (tests run from it). */
export const ROOT = join(import.meta.dirname, '..', '..');

/** How a spawned svc ended. */
export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Spawned {
  child: ChildProcess;
  ended: Promise<Ended>;
  stderr(): string;
}

/** The environment a spawned svc gets: the sandbox's URL (or `url`), a token, a config dir of its own. */
export function svcEnv(s: TestSandbox, opts: { url?: string; user?: string; extra?: Record<string, string> } = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: tempConfigDir(),
    SVC_URL: opts.url ?? s.instanceUrl,
    SVC_TOKEN: s.token(opts.user ?? 'demo'),
    SVC_CONFIG_DIR: tempConfigDir(),
    SVC_KEYCHAIN_SERVICE: `svc-test-none-${process.pid}`,
    NO_COLOR: '1',
    ...opts.extra,
  };
}

/** Starts `node bin/svc.js …args` (or `argv0 …` when given, e.g. unshare) and returns at once; SIGKILLed after `killMs`. */
export function startSvc(args: readonly string[], env: NodeJS.ProcessEnv, opts: { killMs?: number; argv?: readonly string[] } = {}): Spawned {
  const argv = opts.argv ?? [process.execPath, join(ROOT, 'bin', 'svc.js'), ...args];
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.killMs ?? 60_000);
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, ended, stderr: () => stderr };
}

/** Runs the built svc to its end. */
export function runSvc(args: readonly string[], env: NodeJS.ProcessEnv, killMs?: number): Promise<Ended> {
  return startSvc(args, env, killMs === undefined ? {} : { killMs }).ended;
}

/** Whether this machine lets a test mount a tmpfs in a mount namespace of its own (root, or unprivileged user namespaces). */
export function canMountTmpfs(): { ok: boolean; why: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-s9-probe-'));
  const r = spawnSync('unshare', ['-m', 'sh', '-c', `mount -t tmpfs -o size=16k tmpfs '${dir}' && echo mounted`], { encoding: 'utf8' });
  if (r.stdout?.includes('mounted')) return { ok: true, why: '' };
  return { ok: false, why: `cannot mount a tmpfs here (unshare -m: ${(r.stderr || String(r.error)).trim().slice(0, 120)})` };
}

/**
 * A TCP proxy in front of the sandbox. Requests pass at once; while `hold()`
 * is on, the sandbox's answers are kept back (the sandbox has done the work,
 * the client has not heard of it) until `release()`.
 */
export interface HoldingProxy {
  instanceUrl(): string;
  hold(): void;
  /** Resolves once an answer has been kept back (the sandbox answered a held request). */
  heldAnswer(): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingProxy(s: TestSandbox): Promise<HoldingProxy> {
  const origin = new URL(s.sandbox.origin);
  let holding = false;
  const held: (() => void)[] = [];
  let onHeld: (() => void) | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(origin.port), origin.hostname);
    sockets.add(upstream);
    client.on('data', (c: Buffer) => upstream.write(c));
    upstream.on('data', (c: Buffer) => {
      if (!holding) return void client.write(c);
      held.push(() => client.write(c));
      onHeld?.();
    });
    const end = (): void => {
      // An upstream that ends while answers are held: end the client only once they are out.
      if (holding) return void held.push(() => client.destroy());
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      client.destroy();
      upstream.destroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    instanceUrl: () => `http://127.0.0.1:${port}/demo`,
    hold: () => void (holding = true),
    heldAnswer: () => new Promise<void>((r) => (held.length > 0 ? r() : (onHeld = r))),
    release() {
      holding = false;
      for (const f of held.splice(0)) f();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const so of sockets) so.destroy();
        server.close(() => r());
      }),
  };
}

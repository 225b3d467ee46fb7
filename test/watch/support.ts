/**
 * Shared by the watch tests: changes made on the sandbox over HTTP, a stdout
 * that tells when lines arrive, signals delivered to an in-process run, the
 * built svc spawned with its lines collected, and the expected lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessControl } from '../../src/cli/deps.js';
import { Capture, tempConfigDir, testProcesses } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-watch-'));
}

/** What the watch tests change: accounts. */
export interface Account {
  readonly ID: number;
  readonly lastname: string;
  readonly firstname?: string | null;
}

export async function createAccount(s: TestSandbox, lastname: string, firstname = 'Berlin'): Promise<number> {
  const a = await s.call('PUT', 'api/v1/accounts', { json: { lastname, currency: 'EUR', firstname } });
  if (a.status !== 201) throw new Error(`create failed: ${a.status} ${a.text}`);
  return a.json<{ ID: number }>().ID;
}

export async function updateAccount(s: TestSandbox, id: number, values: Record<string, unknown>): Promise<void> {
  const a = await s.call('PATCH', `api/v1/accounts/${id}`, { json: values });
  if (a.status !== 200) throw new Error(`update failed: ${a.status} ${a.text}`);
}

export async function deleteAccount(s: TestSandbox, id: number): Promise<void> {
  const a = await s.call('DELETE', `api/v1/accounts/${id}`);
  if (a.status >= 300) throw new Error(`delete failed: ${a.status} ${a.text}`);
}

/** The feed's lines, as the tests expect them (fields ID, lastname, firstname). */
export const upsert = (id: number, lastname: string, firstname = 'Berlin'): string => JSON.stringify({ op: 'upsert', family: 'accounts', record: { ID: id, lastname, firstname } });
export const del = (id: number): string => JSON.stringify({ op: 'delete', family: 'accounts', record: { ID: id } });

/** Resolves when `lines()` holds at least `n` lines; rejects after `ms` (a watchdog, not a wait: it names what never came). */
function waitLines(lines: () => string[], subscribe: (f: () => void) => () => void, n: number, ms: number, what: () => string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      if (lines().length < n) return false;
      stop();
      clearTimeout(timer);
      resolve(lines());
      return true;
    };
    const stop = subscribe(() => void check());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`waited for ${n} lines, got ${lines().length}:\n${lines().join('\n')}\n${what()}`));
    }, ms);
    check();
  });
}

/** A captured standard output (a pipe) that can be waited on for lines. */
export class LineCapture extends Capture {
  private readonly listeners = new Set<() => void>();
  constructor() {
    super(false);
  }
  override write(chunk: string | Uint8Array): boolean {
    const r = super.write(chunk);
    for (const l of [...this.listeners]) l();
    return r;
  }
  lines(): string[] {
    return this.text.split('\n').filter((l) => l !== '');
  }
  waitLines(n: number, ms = 15_000): Promise<string[]> {
    return waitLines(
      () => this.lines(),
      (f) => {
        this.listeners.add(f);
        return () => this.listeners.delete(f);
      },
      n,
      ms,
      () => '',
    );
  }
}

/** Process control for an in-process run whose SIGINT/SIGTERM/SIGHUP handlers the test can call. */
export function signalProcesses(): ProcessControl & { raise(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP'): void } {
  const handlers = new Map<string, () => void>();
  return {
    ...testProcesses(),
    onceSignal: (signal, fn) => void handlers.set(signal, fn),
    raise(signal) {
      const h = handlers.get(signal);
      handlers.delete(signal);
      h?.();
    },
  };
}

/** The built svc running a watch: its lines as they come, and its end. */
export interface Spawned {
  readonly child: ChildProcess;
  lines(): string[];
  waitLines(n: number, ms?: number): Promise<string[]>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function spawnSvc(s: TestSandbox, args: readonly string[]): Spawned {
  const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    for (const l of [...listeners]) l();
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      for (const l of [...listeners]) l();
      resolve({ code, signal, stderr });
    }),
  );
  const lines = (): string[] => out.split('\n').filter((l) => l !== '');
  return {
    child,
    lines,
    exited,
    waitLines: (n, ms = 15_000) =>
      waitLines(
        lines,
        (f) => {
          listeners.add(f);
          return () => listeners.delete(f);
        },
        n,
        ms,
        () => stderr,
      ),
  };
}

/** The record IDs of a feed's lines, in order: lines, or the standard output that holds them. */
export function idsOf(out: string | readonly string[]): number[] {
  const lines = typeof out === 'string' ? out.split('\n').filter((l) => l !== '') : out;
  return lines.map((l) => (JSON.parse(l) as { record: { ID: number } }).record.ID);
}

/** The cursor file as JSON. */
export function readCursor(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/**
 * Calls `fn` at the sandbox's n-th query of accounts (POST on the collection) counted from now; answers a
 * function that stops counting.
 */
export function onQuery(s: TestSandbox, fn: (n: number) => void): () => void {
  let n = 0;
  s.sandbox.hooks.onArrival = (method, url) => {
    if (method === 'POST' && /\/api\/v1\/accounts(\?|$)/.test(url)) fn(++n);
  };
  return () => {
    s.sandbox.hooks.onArrival = undefined;
  };
}

/** Resolves when the sandbox receives its next query of accounts (a watch that sends one has started polling). */
export function nextQuery(s: TestSandbox): Promise<void> {
  return new Promise((resolve) => {
    const stop = onQuery(s, () => {
      stop();
      resolve();
    });
  });
}

/** Calls `fn` with the body of every query of accounts the sandbox receives from now (needs hooks.record); answers a function that stops. */
export function onQueryBody(s: TestSandbox, fn: (body: unknown) => void): () => void {
  const requests = s.sandbox.hooks.requests;
  const push = requests.push.bind(requests);
  requests.push = (...items) => {
    for (const r of items) if (r.method === 'POST' && /\/api\/v1\/accounts(\?|$)/.test(r.url)) fn(r.body);
    return push(...items);
  };
  return () => {
    requests.push = push;
  };
}

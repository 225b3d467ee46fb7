/**
 * s8-r2-life: a second attack on the wait for another svc's OAuth renewal
 * (commit 2767705: src/auth/oauth/session.ts takeRefreshLock, and
 * src/cli/oauth-credential.ts lockWaitMs / onLockWait). README "Browser
 * sign-in": "a live holder's is waited for up to twice `--timeout` and 30 s,
 * 90 s by default, then exit 1 to try again"; "a crashed holder's lock is
 * taken over after 10 s".
 *
 * Two svc processes (spawned `node bin/svc.js`, as two cron jobs) share one
 * browser sign-in (kept in the plain file) whose access token has expired,
 * against a token endpoint and API of this file's own (a REAL node:http
 * server on 127.0.0.1). The first takes the refresh lock; the second waits.
 *
 * - FINDING: a waiter run with a short `--timeout` and `--retries 0` (as a
 *   script that wants a quick answer per request) waits for the lock as the
 *   README says, but the wait is counted against its own request's deadline
 *   (`--timeout × (retries+1) + 10 s`, started before the bearer token is
 *   asked for): once the holder stored the renewed pair, the request is never
 *   sent and svc fails with "no answer within 13000 ms" (a network timeout
 *   for a request that did not go out).
 * - HELD: a holder killed (SIGKILL) mid-renewal: the waiter takes the lock
 *   over once it is stale and renews exactly once.
 * - HELD: SIGTERM and SIGINT to the waiter (on a terminal, where it says it
 *   waits): exit 130 at once, the holder's lock untouched, the holder goes on.
 *
 * Tests whose names start with "HELD:" are claims that held when written;
 * the others are findings and fail until svc is fixed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../src/auth/plain-file.js';
import { openProfiles } from '../../src/config/profiles.js';
import { refreshLockFile } from '../../src/cli/oauth-credential.js';
import { tempConfigDir } from '../helpers/cli.js';
import { root, useHostileServer } from './s7-support.js';

const CLIENT_SECRET = 's8r2-refresh-client-secret';

/** What the token endpoint does with the next refresh: answer after `ms`, or never. */
let tokenAnswer: { ms: number } | 'never' = { ms: 0 };
let refreshes: string[] = [];
let apiCalls: string[] = [];
let onRefresh: (n: number) => void = () => undefined;

const hostile = useHostileServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const url = req.url ?? '';
    if (url.endsWith('/oauth2/v1/token') && body.includes('grant_type=refresh_token')) {
      refreshes.push(new URLSearchParams(body).get('refresh_token') ?? '');
      const n = refreshes.length;
      onRefresh(n);
      if (tokenAnswer === 'never') return; // held open: the holder waits on it
      const t = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ access_token: `new-access-${n}-${'a'.repeat(30)}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `new-refresh-${n}-${'r'.repeat(30)}` }));
      }, tokenAnswer.ms);
      hostile.timers.add(t);
      return;
    }
    if (url.includes('/api/v1/')) {
      apiCalls.push(`${req.method} ${url} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, auth: req.headers.authorization ?? null }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
}, { closeConnectionsAfterEach: true });

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
  tokenAnswer = { ms: 0 };
  refreshes = [];
  apiCalls = [];
  onRefresh = () => undefined;
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A config dir whose profile sb holds an expired browser sign-in in the plain file. */
async function signedIn(): Promise<{ env: Record<string, string>; lockDir: string; stored: () => { accessToken: string; refreshToken: string } }> {
  const configDir = tempConfigDir();
  const profiles = await openProfiles(configDir);
  const url = hostile.url('/inst');
  profiles.save({ name: 'sb', url, insecureStorage: true, clientId: 'app', keychainUrl: url });
  profiles.use('sb');
  const expired = { type: 'oauth2', accessToken: 'old-access-'.padEnd(40, 'x'), refreshToken: 'old-refresh-'.padEnd(40, 'y'), expiresAt: Math.floor(Date.now() / 1000) - 60, clientId: 'app' };
  const file = join(configDir, PLAIN_FILE_NAME);
  writeFileSync(file, JSON.stringify({ 'profile:sb/token': JSON.stringify(expired), 'profile:sb/clientsecret': CLIENT_SECRET }), { mode: 0o600 });
  const env = { SVC_CONFIG_DIR: configDir, HOME: configDir, NO_COLOR: '1', SVC_KEYCHAIN_SERVICE: `svc-test-none-${process.pid}` };
  const stored = () => JSON.parse(String((JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)['profile:sb/token'])) as { accessToken: string; refreshToken: string };
  return { env, lockDir: `${refreshLockFile(configDir, 'profile:sb')}.lock`, stored };
}

const PLAIN_WARNING = /^svc: warning: using secrets stored in plain text.*\n/gm;

/** svc spawned with a pipe for stdout and stderr. */
function start(args: string[], env: Record<string, string>, killMs = 40_000): { child: ChildProcess; ended: Promise<Ended> } {
  const t0 = Date.now();
  const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), killMs);
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr: stderr.replace(PLAIN_WARNING, ''), ms: Date.now() - t0 });
    }),
  );
  return { child, ended };
}

/**
 * svc on a terminal: `script` gives it a pseudo-terminal (stdout and stderr both go to it). Resolves
 * `said(text)` when the terminal shows `text`; `pid()` is the svc process (script's child).
 */
function startOnTerminal(args: string[], env: Record<string, string>) {
  const t0 = Date.now();
  const cmd = [process.execPath, join(root, 'bin', 'svc.js'), ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qefc', cmd, '/dev/null'], { cwd: root, env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let screen = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout?.on('data', (c: Buffer) => {
    screen += c.toString();
    for (const w of waiters.filter((x) => screen.includes(x.text))) w.resolve();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const ended = new Promise<{ code: number | null; screen: string; ms: number }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, screen: screen.replace(/\r/g, ''), ms: Date.now() - t0 });
    }),
  );
  const said = (text: string): Promise<void> => (screen.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ text, resolve })));
  /** The svc process: the descendant of script (maybe under a `sh -c`) that is node running bin/svc.js. */
  const pid = (): number => {
    const parents = new Map<number, number>();
    const node: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
        const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        if (argv[0] === process.execPath && argv[1]?.endsWith('bin/svc.js')) node.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    const below = (p: number): boolean => {
      for (let at = parents.get(p); at !== undefined && at > 1; at = parents.get(at)) if (at === child.pid) return true;
      return false;
    };
    const found = node.find(below);
    if (found === undefined) throw new Error('no svc under script');
    return found;
  };
  return { child, ended, said, pid };
}

/** Resolves when the token endpoint got its `n`th refresh request. */
function refreshArrives(n: number): Promise<void> {
  if (refreshes.length >= n) return Promise.resolve();
  return new Promise<void>((resolve) => {
    onRefresh = (k) => {
      if (k >= n) resolve();
    };
  });
}

describe('a renewal another svc is making: the second svc waits for it', () => {
  it('a waiter with --timeout 3s --retries 0 waits out a 16 s renewal by the holder and sends its request with the stored pair (not "no answer within 13000 ms" for a request it never sent)', async () => {
    const { env, stored } = await signedIn();
    tokenAnswer = { ms: 16_000 };
    const holder = start(['api', 'accounts/1'], env);
    await refreshArrives(1);
    // A script that wants each request answered quickly: three seconds, no retries. The lock wait is not a request.
    const waiter = start(['--timeout', '3s', '--retries', '0', 'api', 'accounts/2'], env);
    const [a, b] = await Promise.all([holder.ended, waiter.ended]);
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
    expect(stored().refreshToken).toBe(`new-refresh-1-${'r'.repeat(30)}`);
    // README: a live holder is waited for up to max(90 s, 2 × --timeout + 30 s), "then the pair it stored is used".
    expect({ code: b.code, stderr: b.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(b.stdout)).toEqual({ ok: true, auth: `Bearer new-access-1-${'a'.repeat(30)}` });
    expect(refreshes).toHaveLength(1);
  }, 40_000);

  it('HELD: a holder killed (SIGKILL) while its renewal hangs: the waiter takes the lock over once stale (~10 s) and renews exactly once, with the stored refresh token', async () => {
    const { env, lockDir, stored } = await signedIn();
    tokenAnswer = 'never';
    const holder = start(['api', 'accounts/1'], env);
    await refreshArrives(1);
    expect(existsSync(lockDir), 'the holder holds the refresh lock').toBe(true);
    tokenAnswer = { ms: 0 };
    const waiter = start(['api', 'accounts/2'], env);
    holder.child.kill('SIGKILL');
    const killedAt = Date.now();
    const a = await holder.ended;
    expect(a.signal).toBe('SIGKILL');
    const b = await waiter.ended;
    expect({ code: b.code, stderr: b.stderr }).toEqual({ code: 0, stderr: '' });
    expect(Date.now() - killedAt, 'taken over within the 10 s staleness and a margin').toBeLessThan(14_000);
    // Exactly one renewal by the waiter (the killed holder's never answered), with the refresh token that was stored.
    expect(refreshes).toEqual(['old-refresh-'.padEnd(40, 'y'), 'old-refresh-'.padEnd(40, 'y')]);
    expect(stored().refreshToken).toBe(`new-refresh-2-${'r'.repeat(30)}`);
    expect(JSON.parse(b.stdout)).toEqual({ ok: true, auth: `Bearer new-access-2-${'a'.repeat(30)}` });
    expect(existsSync(lockDir), 'the lock is let go').toBe(false);
  }, 30_000);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`HELD: ${signal} to a waiter on a terminal (which says it waits, once): exit 130 at once; the holder's lock untouched, and the holder still finishes`, async () => {
      const { env, lockDir, stored } = await signedIn();
      tokenAnswer = { ms: 6_000 };
      const holder = start(['api', 'accounts/1'], env);
      await refreshArrives(1);
      const lockBefore = statSync(lockDir);
      const waiter = startOnTerminal(['api', 'accounts/2'], env);
      await waiter.said('another svc is renewing this sign-in; waiting for it');
      const t0 = Date.now();
      process.kill(waiter.pid(), signal);
      const w = await waiter.ended;
      expect(Date.now() - t0, 'stops at once').toBeLessThan(2_000);
      expect(w.code).toBe(130);
      expect(w.screen.match(/another svc is renewing this sign-in; waiting for it/g)).toHaveLength(1);
      // The holder's lock is its own: the waiter neither removed nor replaced it.
      expect(existsSync(lockDir)).toBe(true);
      expect(statSync(lockDir).ino).toBe(lockBefore.ino);
      const h = await holder.ended;
      expect({ code: h.code, stderr: h.stderr }).toEqual({ code: 0, stderr: '' });
      expect(stored().refreshToken).toBe(`new-refresh-1-${'r'.repeat(30)}`);
      expect(refreshes).toHaveLength(1);
    }, 30_000);
  }
});

/**
 * The refresh lock of a browser sign-in when something goes wrong around it:
 *
 * - its holder is stopped (SIGINT, SIGTERM) while the token endpoint answers:
 *   the lock is released, and the store holds a whole grant;
 * - its holder is killed (SIGKILL) while the token endpoint has not answered:
 *   the lock directory stays behind, and the next command takes it over once
 *   it is stale (10 s untouched; the test ages it rather than waiting), with
 *   the tokens as they were;
 * - it is taken over (or removed) while its holder still waits for the token
 *   endpoint (a suspended or stalled svc, a person removing it as the lock
 *   message says): the holder carries on, it does not crash;
 * - Ctrl-C just after the service renewed the tokens (the old refresh token
 *   is spent) is held back until the new pair is stored; a failed renewal
 *   ends svc at once, not after the HTTP client's whole deadline;
 * - it is held by a live svc (kept fresh) for longer than it takes to go
 *   stale: waited for, and the pair that svc stored is used; still held
 *   after the wait, exit 1 to try again, never advice to remove it.
 *
 * The built svc in processes of its own, and a real sandbox over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LOCK_WAIT_MS, oauthCredential, takeRefreshLock, type GrantStore } from '../../src/auth/oauth/session.js';
import { SvcError } from '../../src/errors.js';
import { parseGrant, type OAuthGrant } from '../../src/auth/oauth/grant.js';
import { PLAIN_FILE_NAME } from '../../src/auth/plain-file.js';
import { refreshLockFile } from '../../src/cli/oauth-credential.js';
import { openProfiles } from '../../src/config/profiles.js';
import { createHttpClient } from '../../src/http/client.js';
import { tempConfigDir } from '../helpers/cli.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the refresh lock of a browser sign-in', () => {
  const sandbox = useTestSandbox({ record: true });
  const secret = (): string => sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';

  /** Demo's live tokens, from the password grant. */
  async function liveGrant(): Promise<OAuthGrant> {
    const basic = `Basic ${Buffer.from(`svc-cli:${secret()}`).toString('base64')}`;
    const password = encodeURIComponent(sandbox.user('demo').password);
    const answer = await sandbox.call('POST', 'oauth2/v1/token', { token: null, headers: { authorization: basic }, form: `grant_type=password&username=demo&password=${password}` });
    expect(answer.status, answer.text).toBe(200);
    const t = answer.json<{ access_token: string; refresh_token: string }>();
    // Expired by svc's reckoning: the next command renews it first.
    return { type: 'oauth2', accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: 0, clientId: 'svc-cli' };
  }

  /** A config dir whose profile sb keeps `grant` in the plain file; the lock file and how to read the stored grant. */
  async function signedIn(grant: OAuthGrant) {
    expect(existsSync(join(root, 'dist', 'svc.cjs')), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl, insecureStorage: true, clientId: 'svc-cli' });
    profiles.use('sb');
    const file = join(configDir, PLAIN_FILE_NAME);
    writeFileSync(file, JSON.stringify({ 'profile:sb/token': JSON.stringify(grant), 'profile:sb/clientsecret': secret() }), { mode: 0o600 });
    sandbox.sandbox.hooks.requests.length = 0;
    const stored = (): OAuthGrant => JSON.parse((JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>)['profile:sb/token'] ?? '{}') as OAuthGrant;
    return { configDir, lock: `${refreshLockFile(configDir, 'profile:sb')}.lock`, stored };
  }

  /** The built svc; `onTokenRequest` runs when its request reaches the sandbox's /token. */
  function svcProcess(configDir: string, args: string[], onTokenRequest?: (child: ChildProcess) => void) {
    const env = { PATH: process.env.PATH ?? '', HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_KEYCHAIN_SERVICE: `svc-test-none-${process.pid}`, NO_COLOR: '1' };
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (onTokenRequest) {
      sandbox.sandbox.hooks.onArrival = (method, url) => {
        if (method === 'POST' && url.endsWith('/oauth2/v1/token')) onTokenRequest(child);
      };
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr: stderr.replace(/^svc: warning: using secrets stored in plain text.*\n/gm, '') })),
    );
    return { child, closed, stderrText: () => stderr };
  }

  const refreshes = () => sandbox.sandbox.hooks.requests.filter((q) => q.method === 'POST' && q.url.endsWith('/oauth2/v1/token'));

  it('a lock left by a holder killed mid-refresh (SIGKILL) is taken over once stale, and the tokens are as they were', async () => {
    const grant = await liveGrant();
    const { configDir, lock, stored } = await signedIn(grant);
    // The token endpoint is slow; svc is killed while it waits, so the service never renews anything.
    const killed = svcProcess(configDir, ['accounts', 'count'], (child) => {
      sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/oauth2/v1/token', fault: { delayMs: 30_000 } });
      child.kill('SIGKILL');
    });
    expect((await killed.closed).signal).toBe('SIGKILL');
    sandbox.sandbox.hooks.onArrival = undefined;
    expect(statSync(lock).isDirectory()).toBe(true);
    expect(stored()).toEqual(grant);
    // Eleven seconds on, the lock is stale (untouched for longer than 10 s): the next command takes it over at once.
    const past = new Date(Date.now() - 11_000);
    utimesSync(lock, past, past);
    const next = await svcProcess(configDir, ['accounts', 'count']).closed;
    expect({ code: next.code, stderr: next.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(next.stdout)).toMatchObject({ count: expect.any(Number) });
    expect(refreshes()).toHaveLength(1);
    expect(stored().refreshToken).not.toBe(grant.refreshToken);
    expect(existsSync(lock)).toBe(false);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('%s during a refresh releases the lock and leaves a whole grant stored (the old pair or the new)', async (signal) => {
    const grant = await liveGrant();
    const { configDir, lock, stored } = await signedIn(grant);
    const r = await svcProcess(configDir, ['accounts', 'count'], (child) => child.kill(signal)).closed;
    sandbox.sandbox.hooks.onArrival = undefined;
    expect(r.code === 0 && r.signal === null).toBe(false);
    expect(existsSync(lock)).toBe(false);
    const now = stored();
    expect(parseGrant(JSON.stringify(now))).toEqual(now);
    expect(now.clientId).toBe('svc-cli');
  });

  it('a holder whose lock is taken over while the token endpoint has not answered carries on, and does not crash', async () => {
    const grant = await liveGrant();
    const configDir = tempConfigDir();
    const lockFile = refreshLockFile(configDir, 'profile:sb');
    let kept: OAuthGrant = grant;
    const store: GrantStore = { read: async () => kept, write: async (g) => void (kept = g) };
    const http = createHttpClient({ instanceUrl: sandbox.instanceUrl, userAgent: 'svc-test', env: {} });
    // Slow enough for proper-lockfile to look at its lock (every stale/2 = 1 s), which is gone by then.
    sandbox.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !url.endsWith('/oauth2/v1/token')) return;
      sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/oauth2/v1/token', fault: { delayMs: 1500 } });
      rmSync(`${lockFile}.lock`, { recursive: true, force: true });
    };
    const crashes: unknown[] = [];
    const onCrash = (err: unknown): void => void crashes.push(err);
    process.on('uncaughtException', onCrash);
    try {
      const credential = oauthCredential({
        http,
        store,
        grant,
        clientSecret: async () => secret(),
        lockFile,
        lockStaleMs: 2000,
        now: () => Date.now(),
        label: 'sb',
        signIn: 'svc login --web --profile sb',
      });
      const token = await credential.current();
      expect(token).not.toBe(grant.accessToken);
      expect(kept.accessToken).toBe(token);
    } finally {
      process.off('uncaughtException', onCrash);
      await http.close();
    }
    expect(crashes.map((e) => String(e))).toEqual([]);
  });

  // The service has spent the old refresh token: a svc that died before storing the new pair would be signed
  // out. ProcessControl's holdSignals (src/cli/main.ts) holds Ctrl-C back for those milliseconds.
  it('Ctrl-C while the service renews the tokens keeps the new pair (the stored refresh token still works)', async () => {
    const grant = await liveGrant();
    const { configDir, stored } = await signedIn(grant);
    await svcProcess(configDir, ['accounts', 'count'], (child) => child.kill('SIGINT')).closed;
    sandbox.sandbox.hooks.onArrival = undefined;
    // The service renewed the tokens (and spent the old refresh token)...
    expect(refreshes()).toHaveLength(1);
    // ...so what svc kept must be the new pair.
    const basic = `Basic ${Buffer.from(`svc-cli:${secret()}`).toString('base64')}`;
    const info = await sandbox.call('POST', 'oauth2/v1/introspect', { token: null, headers: { authorization: basic }, form: `token=${stored().refreshToken}` });
    expect(info.json()).toMatchObject({ active: true });
  });

  // Without the lock, logout revoked the pair it read at its start: a renewal by another svc meanwhile stored a
  // new pair, which stayed valid (and stored, had the renewal finished after the logout's delete).
  it('logout waits for a renewal by another svc, then revokes the pair that renewal stored and forgets it', async () => {
    const grant = await liveGrant();
    const { configDir, lock, stored } = await signedIn(grant);
    const basic = `Basic ${Buffer.from(`svc-cli:${secret()}`).toString('base64')}`;
    const active = async (token: string): Promise<boolean> =>
      (await sandbox.call('POST', 'oauth2/v1/introspect', { token: null, headers: { authorization: basic }, form: `token=${token}` })).json<{ active: boolean }>().active;
    // "Another svc" holds the refresh lock, as a renewal does.
    const { default: lockfile } = await import('proper-lockfile');
    mkdirSync(dirname(lock), { recursive: true });
    const release = await lockfile.lock(lock.replace(/\.lock$/, ''), { realpath: false, stale: 10_000, onCompromised: () => undefined });
    const out = svcProcess(configDir, ['logout']);
    await new Promise<void>((resolve) =>
      out.child.stderr!.on('data', () => {
        if (out.stderrText().includes('waiting for another svc that is renewing this sign-in')) resolve();
      }),
    );
    // The renewal: the service rotates the pair, and the new one is stored before the lock is let go.
    const renewed = await sandbox.call('POST', 'oauth2/v1/token', { token: null, headers: { authorization: basic }, form: `grant_type=refresh_token&refresh_token=${grant.refreshToken}` });
    expect(renewed.status, renewed.text).toBe(200);
    const next = renewed.json<{ access_token: string; refresh_token: string }>();
    const file = join(configDir, PLAIN_FILE_NAME);
    const entries = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    entries['profile:sb/token'] = JSON.stringify({ ...grant, accessToken: next.access_token, refreshToken: next.refresh_token, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    writeFileSync(file, JSON.stringify(entries), { mode: 0o600 });
    expect(await active(next.refresh_token)).toBe(true);
    await release();
    const r = await out.closed;
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 0,
      stderr: 'svc: waiting for another svc that is renewing this sign-in\nsigned out of sb: the browser sign-in was revoked\n',
    });
    expect(await active(next.refresh_token)).toBe(false);
    expect(await active(next.access_token)).toBe(false);
    expect(stored()).toEqual({});
    expect(existsSync(lock)).toBe(false);
  });

  // request() starts its deadline timer before asking the credential for a token; a renewal that fails there
  // must clear it too, or svc would run on for the whole deadline (--timeout x (retries + 1) + 10 s).
  it('a renewal the service refuses ends svc at once, not after the HTTP deadline', async () => {
    const grant = await liveGrant();
    const { configDir } = await signedIn(grant);
    const basic = `Basic ${Buffer.from(`svc-cli:${secret()}`).toString('base64')}`;
    const used = await sandbox.call('POST', 'oauth2/v1/token', { token: null, headers: { authorization: basic }, form: `grant_type=refresh_token&refresh_token=${grant.refreshToken}` });
    expect(used.status).toBe(200);
    // --timeout 1s: the stray deadline is 1 s x 4 tries + 10 s.
    const r = svcProcess(configDir, ['accounts', 'count', '--timeout', '1s']);
    await new Promise<void>((resolve) =>
      r.child.stderr!.on('data', () => {
        if (r.stderrText().includes('sign in again')) resolve();
      }),
    );
    const stillRunning = new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 1500).unref());
    const outcome = await Promise.race([r.closed.then(() => 'exited' as const), stillRunning]);
    r.child.kill('SIGKILL');
    expect(outcome).toBe('exited');
  });

  /** An in-process credential for an expired grant, sharing `lockFile`; what it keeps, and the HTTP client to close. */
  function waiter(grant: OAuthGrant, lockFile: string, extra: { lockWaitMs: number; onLockWait?: () => void }) {
    let kept: OAuthGrant = grant;
    const store: GrantStore = { read: async () => kept, write: async (g) => void (kept = g) };
    const http = createHttpClient({ instanceUrl: sandbox.instanceUrl, userAgent: 'svc-test', env: {} });
    const credential = oauthCredential({
      http,
      store,
      grant,
      clientSecret: async () => secret(),
      lockFile,
      lockStaleMs: 2000,
      ...extra,
      now: () => Date.now(),
      label: 'sb',
      signIn: 'svc login --web --profile sb',
    });
    return { credential, http, kept: () => kept, put: (g: OAuthGrant) => void (kept = g) };
  }

  // The renewal's lock was waited for a fixed ~22 s, less than the holder's own request may take (--timeout, 30 s by
  // default), then "remove it" was advised while its holder ran.
  it('a lock held by a live svc for longer than it takes to go stale is waited for, and the pair that svc stored is used', async () => {
    const grant = await liveGrant();
    sandbox.sandbox.hooks.requests.length = 0;
    const lockFile = refreshLockFile(tempConfigDir(), 'profile:sb');
    // "Another svc" renewing: it holds the lock, and proper-lockfile keeps it fresh (every 1 s).
    const release = await takeRefreshLock(lockFile, { staleMs: 2000 });
    const renewed: OAuthGrant = { ...grant, accessToken: 'n'.repeat(40), refreshToken: 'm'.repeat(40), expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    let holder: Promise<void> = Promise.resolve();
    const w = waiter(grant, lockFile, {
      lockWaitMs: 20_000,
      // The holder's renewal takes longer than the lock's stale time: it stores its pair, then lets go.
      onLockWait: () => {
        holder = new Promise<void>((resolve) => setTimeout(resolve, 3000)).then(async () => {
          w.put(renewed);
          await release();
        });
      },
    });
    try {
      expect(await w.credential.current()).toBe(renewed.accessToken);
      await holder;
    } finally {
      await w.http.close();
    }
    expect(w.kept()).toEqual(renewed);
    expect(refreshes()).toEqual([]);
    expect(existsSync(`${lockFile}.lock`)).toBe(false);
  });

  it('a lock still held by a live svc after the wait is exit 1, to try again: it is not removed, and svc does not say to remove it', async () => {
    // The default wait covers the holder's request with svc's default deadline (30 s), with room to spare.
    expect(LOCK_WAIT_MS).toBeGreaterThanOrEqual(60_000);
    const grant = await liveGrant();
    sandbox.sandbox.hooks.requests.length = 0;
    const lockFile = refreshLockFile(tempConfigDir(), 'profile:sb');
    const release = await takeRefreshLock(lockFile, { staleMs: 2000 });
    const w = waiter(grant, lockFile, { lockWaitMs: 3000 });
    const t0 = Date.now();
    try {
      const err = await w.credential.current().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(Date.now() - t0).toBeGreaterThanOrEqual(3000);
      expect(err).toBeInstanceOf(SvcError);
      expect((err as SvcError).exitCode).toBe(1);
      expect((err as Error).message).toBe(
        `another svc is still renewing (or signing out of) this sign-in after 3 s: it holds the lock ${lockFile}.lock and is running; try again once it has finished`,
      );
      expect(existsSync(`${lockFile}.lock`)).toBe(true);
    } finally {
      await release();
      await w.http.close();
    }
    expect(w.kept()).toEqual(grant);
    expect(refreshes()).toEqual([]);
  });
});

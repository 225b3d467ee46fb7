/**
 * s8-life: two svc processes (spawned `node bin/svc.js`, as cron jobs) share
 * one browser sign-in whose access token has expired, against a token
 * endpoint of this file's own (a REAL node:http server) that is slow but
 * well within svc's own request deadline (--timeout, 30 s by default): it
 * answers the refresh after 24 s.
 *
 * The first process takes the refresh lock and waits for the answer, as it
 * should. The second waits for the lock, but gives up after about 22 s (the
 * lock's fixed retries), before the holder's own request could even time out,
 * and says "could not take the refresh lock …; if no other svc is running,
 * remove it" with exit 4 — while another svc is running, and is about to
 * store the new pair. A cron job sharing the sign-in with a slow renewal
 * fails as "not signed in" (exit 4), and the advice would have the user
 * delete a live lock (the next renewal then races and burns the single-use
 * refresh token).
 *
 * This test takes about 25 s (the lock's wait cannot be shortened from the
 * outside); its timeout is 60 s.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../src/auth/plain-file.js';
import { openProfiles } from '../../src/config/profiles.js';
import { tempConfigDir } from '../helpers/cli.js';
import { root, useHostileServer } from './s7-support.js';

const CLIENT_SECRET = 's8-refresh-client-secret';
const SLOW_MS = 24_000;

let refreshes = 0;
let firstArrived: () => void = () => undefined;
const arrived = new Promise<void>((r) => (firstArrived = r));
const hostile = useHostileServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if ((req.url ?? '').endsWith('/oauth2/v1/token') && body.includes('grant_type=refresh_token')) {
      refreshes++;
      const n = refreshes;
      firstArrived();
      const t = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ access_token: `new-access-${n}-${'a'.repeat(30)}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `new-refresh-${n}-${'r'.repeat(30)}` }));
      }, SLOW_MS);
      hostile.timers.add(t);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const kill = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr: stderr.replace(/^svc: warning: using secrets stored in plain text.*\n/gm, ''), ms: Date.now() - t0 });
    });
  });
}

describe('a renewal by another svc that is slow, but within its own deadline', () => {
  it('the second process waits for it and uses the pair it stored (not exit 4 "remove the lock" while the holder runs)', async () => {
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    const url = hostile.url('/inst');
    profiles.save({ name: 'sb', url, insecureStorage: true, clientId: 'app', keychainUrl: url });
    profiles.use('sb');
    const expired = { type: 'oauth2', accessToken: 'old-access-'.padEnd(40, 'x'), refreshToken: 'old-refresh-'.padEnd(40, 'y'), expiresAt: Math.floor(Date.now() / 1000) - 60, clientId: 'app' };
    writeFileSync(join(configDir, PLAIN_FILE_NAME), JSON.stringify({ 'profile:sb/token': JSON.stringify(expired), 'profile:sb/clientsecret': CLIENT_SECRET }), { mode: 0o600 });
    const env = { SVC_CONFIG_DIR: configDir, HOME: configDir, NO_COLOR: '1', SVC_KEYCHAIN_SERVICE: `svc-test-none-${process.pid}` };

    const first = run(['auth', 'token'], env);
    // The second starts once the first holds the lock and its refresh is at the service.
    await arrived;
    const second = run(['auth', 'token'], env);
    const [a, b] = await Promise.all([first, second]);

    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
    expect(a.stdout).toBe(`new-access-1-${'a'.repeat(30)}\n`);
    // What a user of gh/kubectl expects: the second job waits for the renewal it depends on, and gets its result.
    expect({ code: b.code, stderr: b.stderr }).toEqual({ code: 0, stderr: '' });
    expect(b.stdout).toBe(a.stdout);
    expect(refreshes).toBe(1);
    const stored = JSON.parse(String((JSON.parse(readFileSync(join(configDir, PLAIN_FILE_NAME), 'utf8')) as Record<string, unknown>)['profile:sb/token'])) as { refreshToken: string };
    expect(stored.refreshToken).toBe(`new-refresh-1-${'r'.repeat(30)}`);
  }, 60_000);
});

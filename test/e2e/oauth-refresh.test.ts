/**
 * Eight svc processes (the built binary, spawned together as cron jobs are)
 * share one browser sign-in whose access token the service no longer takes:
 * all of them succeed, and the service sees exactly one refresh (refresh
 * tokens are single-use; the lock and the re-read after taking it keep the
 * others from burning it). Also with the access token expired by svc's own
 * reckoning, so the processes renew before sending rather than after a 401.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../src/auth/plain-file.js';
import type { ProcessControl } from '../../src/cli/deps.js';
import { openProfiles } from '../../src/config/profiles.js';
import { signInAsPerson } from '../helpers/browser-flow.js';
import { svc, tempConfigDir, testKeychain, testProcesses } from '../helpers/cli.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PROCESSES = 8;

function spawnSvc(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a browser sign-in shared by processes started together', () => {
  let offsetMs = 0;
  const sandbox = useTestSandbox({ record: true, per: 'test', now: () => Date.now() + offsetMs });

  async function signedInConfig(): Promise<{ configDir: string; env: Record<string, string> }> {
    expect(existsSync(join(root, 'dist', 'svc.cjs')), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
    offsetMs = 0;
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl, insecureStorage: true });
    profiles.use('sb');
    const secret = sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    let visit: Promise<unknown> = Promise.resolve();
    const processes: ProcessControl = {
      ...testProcesses(),
      spawnQuiet: async (_c, args) => {
        visit = signInAsPerson(args[args.length - 1] ?? '', { user: 'demo', password: sandbox.user('demo').password, decision: 'approve' });
        return true;
      },
    };
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], {
      configDir,
      env: { BROWSER: 'test-browser', SVC_CLIENT_SECRET: secret },
      processes,
      keychain: testKeychain(),
    });
    await visit;
    expect(r.code, r.stderr).toBe(0);
    // The keychain service is a throwaway one: the tokens are in the plain file, where the processes find them.
    return { configDir, env: { SVC_CONFIG_DIR: configDir, SVC_KEYCHAIN_SERVICE: `svc-test-none-${process.pid}`, HOME: configDir, NO_COLOR: '1' } };
  }

  const refreshes = () =>
    sandbox.sandbox.hooks.requests.filter((q) => q.method === 'POST' && q.url.endsWith('/oauth2/v1/token') && String(q.body && (q.body as Record<string, unknown>).grant_type) === 'refresh_token');

  it.each([
    ['the service refuses the access token (401, then renewal)', 'server'],
    ['svc sees the access token expired (renewal before sending)', 'client'],
  ] as const)(`${PROCESSES} processes, one refresh: %s`, async (_what, whose) => {
    const { configDir, env } = await signedInConfig();
    const before = JSON.parse(JSON.parse(readFileSync(join(configDir, PLAIN_FILE_NAME), 'utf8'))['profile:sb/token']) as { accessToken: string };
    sandbox.sandbox.hooks.requests.length = 0;
    if (whose === 'server') offsetMs = 2 * 3600_000;
    else {
      // Rewrite the stored expiry into the past, as an hour gone by would leave it.
      const file = join(configDir, PLAIN_FILE_NAME);
      const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      const grant = JSON.parse(data['profile:sb/token'] ?? '{}') as Record<string, unknown>;
      data['profile:sb/token'] = JSON.stringify({ ...grant, expiresAt: Math.floor(Date.now() / 1000) - 10 });
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
    }
    const runs = await Promise.all(Array.from({ length: PROCESSES }, () => spawnSvc(['accounts', 'count'], env)));
    for (const r of runs) expect({ code: r.code, stderr: r.stderr.replace(/^svc: warning: using secrets stored in plain text.*\n/gm, '') }).toEqual({ code: 0, stderr: '' });
    expect(new Set(runs.map((r) => r.stdout)).size).toBe(1);
    expect(refreshes()).toHaveLength(1);
    const after = JSON.parse(JSON.parse(readFileSync(join(configDir, PLAIN_FILE_NAME), 'utf8'))['profile:sb/token']) as { accessToken: string };
    expect(after.accessToken).not.toBe(before.accessToken);
  });
});

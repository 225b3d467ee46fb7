/**
 * Stopping `svc login --web` while it waits for the browser (the built svc, in
 * a process of its own, as a person would press Ctrl-C): exit 130 with one
 * line, the loopback port closed, and nothing kept (no tokens, no secret, the
 * profile as it was). Also with SIGTERM and SIGHUP, and with --no-browser waiting on a
 * terminal-less stdin that stays open; and while the code the browser brought
 * back is being exchanged for tokens (a slow token endpoint).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/config/profiles.js';
import { signInAsPerson } from '../helpers/browser-flow.js';
import { tempConfigDir } from '../helpers/cli.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('svc login --web, interrupted while it waits', () => {
  const sandbox = useTestSandbox();

  it.each([
    ['SIGINT', ['--no-browser']],
    ['SIGTERM', ['--no-browser']],
    // A dropped ssh connection (before, svc died by the signal).
    ['SIGHUP', ['--no-browser']],
    ['SIGINT', []],
  ] as const)('%s (%j): exit 130, the port closed, nothing kept', async (signal, extra) => {
    expect(existsSync(join(root, 'dist', 'svc.cjs')), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl });
    profiles.use('sb');
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');
    const secret = sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'login', '--web', '--client-id', 'svc-cli', '--insecure-storage', ...extra], {
      // A "browser" that starts and does nothing: svc waits.
      env: { PATH: process.env.PATH ?? '', HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_CLIENT_SECRET: secret, BROWSER: 'true' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    const waiting = new Promise<string>((resolve) =>
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        if (stderr.includes('Waiting for the sign-in')) resolve(stderr);
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const shown = await waiting;
    const port = Number(new URL(new URL(/(http:\/\/\S+\/authorize\?\S+)/.exec(shown)![1]!).searchParams.get('redirect_uri')!).port);
    child.kill(signal);
    expect(await exited, stderr).toBe(130);
    expect(stderr).toMatch(new RegExp(`\\nsvc: interrupted by ${signal}; not signed in\\n$`));
    await expect(fetch(`http://127.0.0.1:${port}/callback`)).rejects.toThrow();
    expect(readdirSync(configDir).filter((f) => f !== 'config.json' && f !== '.config')).toEqual([]);
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
  });
});

describe('svc login --web, interrupted while it exchanges the code for tokens', () => {
  const sandbox = useTestSandbox();

  it.each(['SIGINT', 'SIGTERM'] as const)('%s: exit 130 at once, nothing kept, though the browser came back', async (signal) => {
    expect(existsSync(join(root, 'dist', 'svc.cjs')), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl });
    profiles.use('sb');
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');
    const secret = sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], {
      env: { PATH: process.env.PATH ?? '', HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_CLIENT_SECRET: secret, BROWSER: 'true' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // The code comes back; the token endpoint is slow to answer, and the person presses Ctrl-C meanwhile.
    let exchanges = 0;
    sandbox.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !url.endsWith('/oauth2/v1/token')) return;
      exchanges++;
      sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/oauth2/v1/token', fault: { delayMs: 30_000 } });
      child.kill(signal);
    };
    let stderr = '';
    let visit: Promise<unknown> | undefined;
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const url = /(http:\/\/\S+\/authorize\?\S+)/.exec(stderr)?.[1];
      if (url && !visit) visit = signInAsPerson(url, { user: 'demo', password: sandbox.user('demo').password, decision: 'approve' }).catch((err: unknown) => err);
    });
    const exited = await new Promise<number | null>((resolve) => child.on('close', resolve));
    await visit;
    expect(exchanges).toBe(1);
    expect(exited, stderr).toBe(130);
    expect(stderr).toMatch(new RegExp(`\\nsvc: interrupted by ${signal}; not signed in\\n$`));
    expect(stderr).not.toContain('signed in to sb');
    expect(readdirSync(configDir).filter((f) => f !== 'config.json' && f !== '.config')).toEqual([]);
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
  });
});

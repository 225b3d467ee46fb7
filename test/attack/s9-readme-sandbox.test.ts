/**
 * s9-readme: README § Local sandbox, "Profile": "When a sandbox comes back at
 * another address (another `--port`, or `--port 0`) or with a tenant seeded
 * afresh (…), its profile follows it and drops the token it kept, which that
 * sandbox would refuse, and says so: profile 'sandbox' now points at … ; the
 * token it kept was for the old one and was removed".
 *
 * A sandbox started again from the same data dir on another port serves the
 * same tenant from the same database: it accepts the token the profile kept.
 * svc throws that valid token away, so every `svc sandbox start --port 0`
 * (the README's scripting form) costs a new `svc login`. Driven as a user runs
 * it: spawned `node bin/svc.js`, a data dir and HOME of the test's own, no
 * keychain (the token in the --insecure-storage plain file).
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './s7-support.js';
import { killSandboxesOf, sandboxHarness } from './s8-sandbox-support.js';

const h = sandboxHarness('s9-readme-sb-home-', 's9-readme-sb-');

afterAll(async () => {
  for (const dir of h.dirs) await h.svc(['sandbox', 'stop', '--data-dir', dir]);
  killSandboxesOf(h.dirs);
  h.cleanUp();
});

/** `node bin/svc.js …args` in the harness's environment plus `env`, with `input` on stdin. */
function svcWith(args: string[], input: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { cwd: root, env: { ...h.env(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

interface Started {
  instanceUrl: string;
  password: string;
  appsecret: string;
  profile: string;
  stderr: string;
}

async function startOn(dir: string): Promise<Started> {
  const r = await h.svc(['sandbox', 'start', '--data-dir', dir, '--port', '0', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const profile = /profile '([^']+)' points at it/.exec(r.stderr)?.[1] ?? '';
  expect(profile, r.stderr).not.toBe('');
  return { ...(JSON.parse(r.stdout) as Omit<Started, 'profile' | 'stderr'>), profile, stderr: r.stderr };
}

describe('README § Local sandbox, Profile: a sandbox back at another port', () => {
  it('keeps the profile signed in: the token it kept is this sandbox\'s and still accepted (today removed, "was for the old one")', async () => {
    const dir = h.dataDir();
    const first = await startOn(dir);
    const login = await svcWith(['login', '--profile', first.profile, '--user', 'demo', '--password-stdin', '--insecure-storage'], first.password, { SVC_APPSECRET: first.appsecret });
    expect(login.code, login.stderr).toBe(0);
    const token = (await svcWith(['--profile', first.profile, 'auth', 'token'], '', {})).stdout.trim();
    expect(token).toMatch(/^\S+$/);

    expect((await h.svc(['sandbox', 'stop', '--data-dir', dir])).code).toBe(0);
    const again = await startOn(dir);
    expect(again.instanceUrl).not.toBe(first.instanceUrl);

    // HELD, and the README's reason is false: the sandbox at the new address accepts the old token.
    const direct = await svcWith(['accounts', 'count', '--jq', '.count'], '', { SVC_URL: again.instanceUrl, SVC_TOKEN: token });
    expect(direct.code, direct.stderr).toBe(0);

    // Today: "profile '…' now points at … (was …); the token it kept was for the old one and was removed", then exit 4.
    expect(again.stderr).not.toMatch(/token it kept was for the old one/);
    const viaProfile = await svcWith(['--profile', first.profile, 'accounts', 'count', '--jq', '.count'], '', {});
    expect(viaProfile.code, viaProfile.stderr).toBe(0);
    expect(viaProfile.stdout).toBe(direct.stdout);
  }, 30_000);

  it('HELD: the profile follows the new address, and says so', async () => {
    const dir = h.dataDir();
    const first = await startOn(dir);
    expect((await h.svc(['sandbox', 'stop', '--data-dir', dir])).code).toBe(0);
    const again = await startOn(dir);
    expect(again.stderr).toContain(`profile '${first.profile}' now points at ${again.instanceUrl} (was ${first.instanceUrl})`);
    const shown = await svcWith(['profile', 'show', first.profile, '--jq', '.url'], '', {});
    expect(shown.stdout.trim()).toBe(again.instanceUrl);
  }, 30_000);
});

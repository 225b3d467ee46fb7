/**
 * `svc sandbox start`: flags → options (pure); in-process, the start that
 * finds a sandbox already serving the data dir (a real one, checked over
 * HTTP) prints its credentials and registers the profile. Spawned starts are
 * covered in test/cli/sandbox.test.ts.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxProfileName } from '../../../src/commands/sandbox/profile.js';
import { startTimeoutMs } from '../../../src/commands/sandbox/options.js';
import { foregroundArgs } from '../../../src/commands/sandbox/spawn.js';
import { toSandboxStartOptions } from '../../../src/commands/sandbox/start/options.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { svc, tempConfigDir, testKeychain } from '../../helpers/cli.js';
import { freshDataDir, serveDataDir, type Serving } from './serving.js';

const open: Serving[] = [];

/** Listens on the port (when the kernel lets it) until closed; a port it cannot take cannot be handed out either. */
async function holdPort(port: number): Promise<{ close(): Promise<void> }> {
  const server: Server = createServer();
  const held = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  return { close: () => (held ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve()) };
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

describe('svc sandbox start: flags → options', () => {
  it('defaults to port 8642 in the background, over HTTP', () => {
    expect(toSandboxStartOptions({})).toEqual({ port: 8642, https: false, foreground: false });
    expect(toSandboxStartOptions({ port: '0', dataDir: 'd', seedAccounts: '5', faults: '0.1', https: true, foreground: true })).toEqual({
      dataDir: 'd',
      port: 0,
      https: true,
      seedAccounts: 5,
      faults: 0.1,
      foreground: true,
    });
  });

  it('reads --oauth-access-ttl as a duration in whole seconds', () => {
    expect(toSandboxStartOptions({ oauthAccessTtl: '90s' })).toMatchObject({ oauthAccessTtl: 90 });
    expect(toSandboxStartOptions({ oauthAccessTtl: '1h' })).toMatchObject({ oauthAccessTtl: 3600 });
    expect(toSandboxStartOptions({ oauthAccessTtl: '120' })).toMatchObject({ oauthAccessTtl: 120 });
    expect(() => toSandboxStartOptions({ oauthAccessTtl: 'soon' })).toThrow("invalid --oauth-access-ttl 'soon'; use a number with ms, s, m, h, d or w, e.g. 30s, 1m30s or 30d");
    expect(() => toSandboxStartOptions({ oauthAccessTtl: '500ms' })).toThrow("--oauth-access-ttl '500ms' is too short; use at least 1s, e.g. 5m or 1h");
    expect(() => toSandboxStartOptions({ oauthAccessTtl: '0' })).toThrow('--oauth-access-ttl must be more than zero');
    expect(() => toSandboxStartOptions({ oauthAccessTtl: '101d' })).toThrow("--oauth-access-ttl '101d' is too long; use at most 100d");
    expect(foregroundArgs({ dataDir: '/d', port: 0, https: false, oauthAccessTtlSeconds: 90 })).toEqual([
      'sandbox', 'start', '--foreground', '--data-dir', '/d', '--port', '0', '--oauth-access-ttl', '90s',
    ]);
  });

  it('waits longer for a large tenant to be seeded: 20 s, and 150 s more a million accounts', () => {
    expect(startTimeoutMs(undefined)).toBe(20_000);
    expect(startTimeoutMs(100_000)).toBe(35_000);
    expect(startTimeoutMs(1_000_000)).toBe(170_000);
  });

  it('refuses a bad port, tenant size or fault rate with one line', () => {
    expect(() => toSandboxStartOptions({ port: '65536' })).toThrow("invalid port '65536'; give a number from 1 to 65535, or 0 for a free port");
    expect(() => toSandboxStartOptions({ seedAccounts: '0' })).toThrow("invalid number of accounts '0'; give a whole number from 1 to 1000000");
    expect(() => toSandboxStartOptions({ faults: '2' })).toThrow("--faults takes a share of requests from 0 to 1, e.g. 0.1, not '2'");
  });
});

describe('svc sandbox start: run', () => {
  it('finds the sandbox serving the data dir, prints its credentials as data and registers the profile', async () => {
    const dataDir = freshDataDir();
    const serving = await serveDataDir(dataDir);
    open.push(serving);
    const configDir = tempConfigDir();
    const r = await svc(['sandbox', 'start', '--data-dir', dataDir, '-o', 'json'], { configDir, keychain: testKeychain() });
    expect(r.code, r.stderr).toBe(0);
    const demo = serving.sandbox.credentials.demo;
    expect(JSON.parse(r.stdout)).toEqual({
      instanceUrl: serving.state.instanceUrl,
      user: 'demo',
      password: demo?.users.find((u) => u.name === 'demo')?.password,
      appsecret: demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret,
      clientId: 'svc-cli',
      clientSecret: demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret,
    });
    expect(r.stderr).toContain(
      `a sandbox already runs from ${dataDir} at ${serving.state.instanceUrl} (pid ${serving.state.pid}); 'svc sandbox stop --data-dir ${dataDir}' first to start it with other options\n`,
    );
    const name = sandboxProfileName(dataDir, {});
    expect(name).toMatch(/^sandbox-data-[0-9a-f]{4}$/);
    expect(r.stderr).toContain(`profile '${name}' points at it: svc login --profile ${name} --user demo\n`);
    const profiles = await openProfiles(configDir);
    expect(profiles.get(name)?.url).toBe(serving.state.instanceUrl);
    expect(profiles.current()).toBe(name);
  });

  it('gives each sandbox a profile of its own, so a second one leaves the first signed in; a profile that follows its sandbox to a new port keeps its token (the same tenant) and says where it points', async () => {
    const [dirA, dirB] = [freshDataDir(), freshDataDir()];
    const first = await serveDataDir(dirA);
    open.push(first);
    const second = await serveDataDir(dirB);
    open.push(second);
    const configDir = tempConfigDir();
    const keychain = testKeychain();
    const env = { SVC_SANDBOX_DIR: dirA };
    const run = (argv: string[], o: { stdin?: string[]; env?: Record<string, string> } = {}) => svc(argv, { configDir, keychain, env: { ...env, ...o.env }, ...(o.stdin ? { stdin: o.stdin } : {}) });
    // The default data dir's sandbox is `sandbox`; sign in to it (plain file: no Secret Service needed).
    expect((await run(['sandbox', 'start', '-o', 'json'])).stderr).toContain("profile 'sandbox' points at it");
    const secret = (s: Serving) => s.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    const password = (s: Serving) => s.sandbox.credentials.demo?.users.find((u) => u.name === 'demo')?.password ?? '';
    const login = await run(['login', '--profile', 'sandbox', '--user', 'demo', '--password-stdin', '--insecure-storage'], { stdin: [password(first)], env: { SVC_APPSECRET: secret(first) } });
    expect(login.code, login.stderr).toBe(0);
    // Another data dir: its own profile; `sandbox` still reaches the first sandbox with its token.
    const b = await run(['sandbox', 'start', '--data-dir', dirB, '-o', 'json']);
    const nameB = sandboxProfileName(dirB, env);
    expect(b.stderr).toContain(`profile '${nameB}' points at it: svc login --profile ${nameB} --user demo\n`);
    expect(b.stderr).not.toContain('now points at');
    const who = await run(['whoami', '--profile', 'sandbox', '-o', 'json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ name: 'demo' });
    expect((await openProfiles(configDir)).get(nameB)?.url).toBe(second.state.instanceUrl);
    // The first sandbox again, at another port: its profile follows it and forgets the old token.
    await first.close();
    open.splice(open.indexOf(first), 1);
    // Hold the old port so the kernel cannot hand it out again (it did, once in a CI run).
    const holder = await holdPort(first.sandbox.port);
    const moved = await serveDataDir(dirA).finally(() => holder.close());
    open.push(moved);
    expect(moved.state.instanceUrl).not.toBe(first.state.instanceUrl);
    const again = await run(['sandbox', 'start', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`\nprofile 'sandbox' now points at ${moved.state.instanceUrl} (was ${first.state.instanceUrl})\n`);
    // The same data dir, the same tenant: the token it kept is still this sandbox's.
    const after = await run(['whoami', '--profile', 'sandbox', '-o', 'json']);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ name: 'demo' });
    expect((await openProfiles(configDir)).get(nameB)?.url).toBe(second.state.instanceUrl);
  });

  it('prints, for people, the OAuth client and how to sign in with a browser', async () => {
    const dataDir = freshDataDir();
    const serving = await serveDataDir(dataDir);
    open.push(serving);
    const r = await svc(['sandbox', 'start', '--data-dir', dataDir, '-o', 'table'], { configDir: tempConfigDir(), keychain: testKeychain() });
    expect(r.code, r.stderr).toBe(0);
    const secret = serving.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    expect(r.stdout).toMatch(/^OAuth client: +svc-cli \(its client secret is the appsecret\)$/m);
    const hint = r.stdout.split('\n').find((l) => l.startsWith('browser sign-in:'));
    // With the sandbox's own profile: without it, the line would sign in the current profile (another sandbox, or a real instance).
    const profile = /profile '([^']+)' points at it/.exec(r.stderr)?.[1];
    expect(profile).toMatch(/^sandbox-/);
    expect(hint?.replace(/^browser sign-in: +/, '')).toBe(`SVC_CLIENT_SECRET=${secret} svc login --web --profile ${profile} --client-id svc-cli`);
  });

  it('says so when it cannot control processes, before touching the data dir', async () => {
    expect(await svc(['sandbox', 'start', '--data-dir', freshDataDir()], { processes: false })).toMatchObject({
      code: 1,
      stderr: 'svc: svc sandbox cannot control processes here; run it from the svc command line\n',
    });
  });
});

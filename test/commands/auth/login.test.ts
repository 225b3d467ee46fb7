/**
 * `svc login`: flags → options (pure), and a sign-in against a real sandbox,
 * the token kept in the plain file (--insecure-storage, so no Secret Service
 * is needed); test/cli/login.test.ts covers the keychain and the prompts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../../src/auth/plain-file.js';
import { toLoginOptions } from '../../../src/commands/auth/login/options.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { svc, tempConfigDir, testKeychain } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

describe('svc login: flags → options', () => {
  it('takes the flags as typed options, --expires in milliseconds', () => {
    expect(toLoginOptions({})).toEqual({ passwordStdin: false, appsecretStdin: false, insecureStorage: false });
    expect(toLoginOptions({ user: 'dana', passwordStdin: true, otp: '123456', expires: '30d', insecureStorage: true })).toEqual({
      user: 'dana',
      passwordStdin: true,
      appsecretStdin: false,
      otp: '123456',
      expiresMs: 30 * 86_400_000,
      insecureStorage: true,
    });
  });

  it('refuses both secrets on stdin, and a bad --expires, with one line each', () => {
    expect(() => toLoginOptions({ passwordStdin: true, appsecretStdin: true })).toThrow(
      '--password-stdin and --appsecret-stdin cannot both read stdin; give the secret in SVC_APPSECRET',
    );
    expect(() => toLoginOptions({ expires: 'soon' })).toThrow("invalid --expires 'soon'; use a number with ms, s, m, h, d or w, e.g. 30s, 1m30s or 30d");
    expect(() => toLoginOptions({ expires: '0s' })).toThrow('--expires must be more than zero');
    // A lifetime the token would not outlive being sent: refused, from 1 minute to ten years.
    for (const short of ['1ms', '1.5', '59s', '59999ms']) {
      expect(() => toLoginOptions({ expires: short }), short).toThrow(`--expires '${short}' is too short; a token lives at least 1m (e.g. --expires 12h or 30d)`);
    }
    expect(toLoginOptions({ expires: '1m' }).expiresMs).toBe(60_000);
    expect(toLoginOptions({ expires: '60' }).expiresMs).toBe(60_000);
    expect(toLoginOptions({ expires: '3650d' }).expiresMs).toBe(3650 * 86_400_000);
    expect(() => toLoginOptions({ expires: '3651d' })).toThrow("--expires '3651d' is too long; use at most 3650d");
  });
});

describe('svc login: against the sandbox', () => {
  const sandbox = useTestSandbox({ record: true, per: 'test' });
  const appsecret = (): string => sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';

  async function profileDir(): Promise<string> {
    const dir = tempConfigDir();
    const profiles = await openProfiles(dir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl });
    profiles.use('sb');
    return dir;
  }

  it('signs in with the password from stdin, keeps the token in the plain file, and says so on stderr', async () => {
    const configDir = await profileDir();
    const r = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage', '--expires', '1d'], {
      configDir,
      keychain: testKeychain(),
      env: { SVC_APPSECRET: appsecret() },
      stdin: [`${sandbox.user('demo').password}\n`],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: warning: using secrets stored in plain text in .+ \(chosen with --insecure-storage\)\n/);
    expect(r.stderr).toMatch(/\nsigned in to sb as demo \(token in the plain file, expires \d{4}-\d{2}-\d{2}\)\n$/);
    const login = sandbox.sandbox.hooks.requests.filter((q) => q.url === '/demo/auth/v1/login');
    expect(login).toHaveLength(1);
    const form = login[0]?.body as Record<string, string>;
    expect(form.name).toBe('demo');
    expect(form.identifier).toBe((await openProfiles(configDir)).get('sb')?.identifier);
    expect(Number(form.expdate)).toBeGreaterThan(Date.now() / 1000);
    const token = /[0-9a-f]{40}/.exec(readFileSync(join(configDir, PLAIN_FILE_NAME), 'utf8'))?.[0] ?? '';
    expect((await sandbox.call('HEAD', 'auth/v1/', { token })).status).toBe(204);
    expect((await openProfiles(configDir)).get('sb')).toMatchObject({ user: 'demo', insecureStorage: true });
  });

  it('reads the token back for an instance named by --url alone, as it was stored (no profile to remember the choice)', async () => {
    const configDir = tempConfigDir();
    const login = await svc(['login', '--url', sandbox.instanceUrl, '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      configDir,
      keychain: testKeychain(),
      env: { SVC_APPSECRET: appsecret() },
      stdin: [sandbox.user('demo').password],
    });
    expect(login.code, login.stderr).toBe(0);
    const count = await svc(['--url', sandbox.instanceUrl, 'accounts', 'count', '-o', 'json'], { configDir, keychain: testKeychain() });
    expect(count.code, count.stderr).toBe(0);
    expect(JSON.parse(count.stdout)).toHaveProperty('count');
    expect(count.stderr).toMatch(/^svc: warning: using secrets stored in plain text in .+ \(chosen with --insecure-storage\)\n$/);
  });

  it('prints the result as data only when asked with -o', async () => {
    const configDir = await profileDir();
    const r = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage', '-o', 'json'], {
      configDir,
      keychain: testKeychain(),
      env: { SVC_APPSECRET: appsecret() },
      stdin: [sandbox.user('demo').password],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ target: 'sb', url: sandbox.instanceUrl, user: 'demo', storage: 'plain file' });
  });

  it('exits 4 with the service reason when the password is wrong, and stores nothing', async () => {
    const configDir = await profileDir();
    const r = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      configDir,
      keychain: testKeychain(),
      env: { SVC_APPSECRET: appsecret() },
      stdin: ['not the password'],
    });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: login failed: .+\n$/);
    expect((await openProfiles(configDir)).get('sb')?.user).toBeUndefined();
  });

  it('asks for nothing without a terminal: a missing password is a usage error naming the flag', async () => {
    const r = await svc(['login', '--user', 'demo', '--insecure-storage'], { configDir: await profileDir(), keychain: testKeychain() });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'svc: a password is needed and there is no terminal to ask on: pipe it in with --password-stdin\n' });
  });

  it('signs in to a profile whose name a hand edit gave it ("my prod"): the profile keeps the sign-in, and logout ends it', async () => {
    const configDir = tempConfigDir();
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ current: 'my prod', profiles: { 'my prod': { url: sandbox.instanceUrl, identifier: 'svc-my-prod' } } }));
    const keychain = testKeychain();
    const r = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], { configDir, keychain, env: { SVC_APPSECRET: appsecret() }, stdin: [sandbox.user('demo').password] });
    expect(r.code, r.stderr).toBe(0);
    expect((await openProfiles(configDir)).get('my prod')).toMatchObject({ insecureStorage: true, user: 'demo' });
    expect((await svc(['whoami'], { configDir, keychain })).code).toBe(0);
    const out = await svc(['logout'], { configDir, keychain });
    expect(out.stderr).toMatch(/signed out of my prod: the token was invalidated\n$/);
    expect(existsSync(join(configDir, PLAIN_FILE_NAME))).toBe(false);
  });

  it('a store that cannot keep the token leaves the profile\'s choice of store as it was', async () => {
    const configDir = await profileDir();
    mkdirSync(join(configDir, PLAIN_FILE_NAME));
    const r = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], { configDir, keychain: testKeychain(), env: { SVC_APPSECRET: appsecret() }, stdin: [sandbox.user('demo').password] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/credentials\.insecure\.json \(it is a directory, not a file\)/);
    const p = (await openProfiles(configDir)).get('sb');
    expect(p?.insecureStorage).toBeUndefined();
    expect(p?.user).toBeUndefined();
  });
});

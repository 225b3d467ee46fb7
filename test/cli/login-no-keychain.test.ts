/**
 * svc on a machine without a keychain (a headless Linux server, the usual
 * cron host): `svc login` names a missing input (exit 2) before it touches
 * the keychain, refuses in one line when only the keychain is missing, and
 * with --insecure-storage keeps the token where `--url` finds it again,
 * warning once per command; `svc profile show` and `remove` say in one line
 * what they could not do, and warn only about what was there. In-process with
 * a keychain that fails as the real one does without D-Bus, and spawned
 * (`node bin/svc.js`, after `npm run build`) with no DBUS_SESSION_BUS_ADDRESS.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../src/auth/plain-file.js';
import { resolveTarget } from '../../src/cli/connection.js';
import { openProfiles } from '../../src/config/profiles.js';
import { decodeBase32, totp } from '../../src/sandbox/auth/totp.js';
import { svc, tempConfigDir, testDeps } from '../helpers/cli.js';
import { useTestSandbox } from '../helpers/sandbox.js';
import { headlessEnv, noSecretService } from './no-secret-service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const s = useTestSandbox();
const appsecret = (): string => s.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
const password = (name: string): string => s.user(name).password;

/** The one line svc prints when the keychain is missing (the reason as src/auth/keychain.ts words it). */
const REFUSAL =
  "svc: no usable OS keychain: no D-Bus session, DBUS_SESSION_BUS_ADDRESS is unset; svc will not keep the token in plain text on its own: in scripts use SVC_TOKEN or SVC_TOKEN_FILE, or run 'svc login --insecure-storage' to keep it in a 0600 file\n";
const WARNING = /^svc: warning: using secrets stored in plain text in \S+credentials\.insecure\.json \(chosen with --insecure-storage\)$/;

/**
 * Spawns the built svc as cron would: no terminal, no D-Bus session, no display. Asynchronously: the
 * sandbox answers from this process.
 */
function spawned(home: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { cwd: root, env: headlessEnv(home, opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(opts.input ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('svc login without a keychain: the inputs first', () => {
  it('names a missing user name, password or application secret (exit 2) without asking the keychain', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [['login'], {}, 'svc: a user name and a password are needed and there is no terminal to ask on: pass --user NAME, and pipe the password in with --password-stdin\n'],
      [['login', '--user', 'demo'], {}, 'svc: a password is needed and there is no terminal to ask on: pipe it in with --password-stdin\n'],
      [['login', '--user', 'demo', '--password-stdin'], {}, 'svc: the application secret is needed and there is no terminal to ask on: set SVC_APPSECRET, or pass --appsecret-stdin\n'],
    ];
    for (const [argv, env, message] of cases) {
      const { keychain, calls } = noSecretService();
      const configDir = tempConfigDir();
      const r = await svc(['--url', s.instanceUrl, ...argv], { configDir, keychain, env, stdin: [password('demo')] });
      expect(r, argv.join(' ')).toEqual({ code: 2, stdout: '', stderr: message });
      // The first two never reach the keychain; the third learns there is no stored secret there.
      if (argv.length < 4) expect(calls).toEqual([]);
    }
    expect(s.sandbox.hooks.requests.filter((q) => q.url.endsWith('/auth/v1/login'))).toEqual([]);
  });

  it('with every input given, refuses in one line naming the keychain problem and the alternatives (exit 1), sending nothing', async () => {
    const { keychain } = noSecretService();
    const configDir = tempConfigDir();
    const r = await svc(['--url', s.instanceUrl, 'login', '--user', 'demo', '--password-stdin'], { configDir, keychain, env: { SVC_APPSECRET: appsecret() }, stdin: [password('demo')] });
    expect(r).toEqual({ code: 1, stdout: '', stderr: REFUSAL });
  });

  it('names --otp and SVC_OTP (exit 2) for a two-factor account without a terminal, keeping nothing', async () => {
    const configDir = tempConfigDir();
    const base = ['--url', s.instanceUrl, 'login', '--user', 'secure', '--password-stdin', '--insecure-storage'];
    const r = await svc(base, { configDir, keychain: noSecretService().keychain, env: { SVC_APPSECRET: appsecret() }, stdin: [password('secure')] });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter((l) => !WARNING.test(l))).toEqual([
      'svc: the one-time code of this two-factor account is needed and there is no terminal to ask on: pass --otp CODE or set SVC_OTP',
      '',
    ]);
    expect(() => readFileSync(join(configDir, PLAIN_FILE_NAME), 'utf8')).toThrow(/ENOENT/);
    // The next time step's code: another test may have spent this step's, and a code is accepted once.
    const code = totp(decodeBase32(s.user('secure').otpsecret ?? ''), Math.floor(Date.now() / 1000) + 30);
    const again = await svc(base, { configDir, keychain: noSecretService().keychain, env: { SVC_APPSECRET: appsecret(), SVC_OTP: code }, stdin: [password('secure')] });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('svc --url URL login --insecure-storage, then svc --url URL …', () => {
  it('finds the token again however the URL is spelt, with one warning line per command', async () => {
    const configDir = tempConfigDir();
    const { keychain } = noSecretService();
    const login = await svc(['--url', s.instanceUrl, 'login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      configDir,
      keychain,
      env: { SVC_APPSECRET: appsecret() },
      stdin: [password('demo')],
    });
    expect(login.code, login.stderr).toBe(0);
    const lines = login.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(WARNING);
    expect(lines[1]).toMatch(/^signed in to http:\/\/127\.0\.0\.1:\d+\/demo as demo \(token in the plain file, expires \d{4}-\d{2}-\d{2}\)$/);
    const spelt = [s.instanceUrl, `${s.instanceUrl}/`, `${s.instanceUrl}//`, s.instanceUrl.replace('http://', 'HTTP://')];
    for (const url of spelt) {
      const who = await svc(['--url', url, 'whoami', '-o', 'json'], { configDir, keychain });
      expect(who.code, `${url}: ${who.stderr}`).toBe(0);
      expect(JSON.parse(who.stdout)).toMatchObject({ name: 'demo' });
      expect(who.stderr.trimEnd().split('\n'), url).toEqual([expect.stringMatching(WARNING)]);
    }
  });

  it('names one instance by one key: trailing slashes, the case of the host and a default port do not count', async () => {
    const profiles = await openProfiles(tempConfigDir());
    const key = (url: string) => resolveTarget({ url }, testDeps(), profiles).key;
    expect(key('https://erp.example.com/acme')).toBe('url:https://erp.example.com/acme');
    for (const url of ['https://erp.example.com/acme/', 'HTTPS://ERP.Example.COM/acme', 'https://erp.example.com:443/acme//']) expect(key(url), url).toBe('url:https://erp.example.com/acme');
    // The path is the instance's name: its case counts.
    expect(key('https://erp.example.com/ACME')).toBe('url:https://erp.example.com/ACME');
    expect(key('http://127.0.0.1:80/demo/')).toBe('url:http://127.0.0.1/demo');
  });
});

describe('svc profile without a keychain', () => {
  it('show says in one line that the keychain could not be read, and why', async () => {
    const configDir = tempConfigDir();
    const { keychain } = noSecretService();
    await svc(['profile', 'add', 'acme', '--url', 'https://erp.example.com/acme'], { configDir, keychain });
    // Signed in there once (a login keeps the instance its secrets are for).
    const profiles = await openProfiles(configDir);
    profiles.save({ ...profiles.get('acme')!, user: 'dana', keychainUrl: 'https://erp.example.com/acme' });
    const table = await svc(['profile', 'show', 'acme'], { configDir, keychain, tty: true, env: { NO_COLOR: '1' } });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toBe('');
    expect(table.stdout).toMatch(/^token:\s+unknown: the keychain could not be read \(no D-Bus session, DBUS_SESSION_BUS_ADDRESS is unset\)$/m);
    const json = JSON.parse((await svc(['profile', 'show', 'acme', '-o', 'json'], { configDir, keychain })).stdout) as Record<string, unknown>;
    expect(json.tokenStored).toBeNull();
  });

  it('remove warns only about secrets that may be there: none for a profile never signed in, one line for one signed in to the keychain', async () => {
    const configDir = tempConfigDir();
    const { keychain } = noSecretService();
    await svc(['profile', 'add', 'never', '--url', 'https://erp.example.com/never'], { configDir, keychain });
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'plain', url: 'https://erp.example.com/plain', user: 'dana', insecureStorage: true });
    profiles.save({ name: 'kept', url: 'https://erp.example.com/kept', user: 'dana', tokenExpires: 2_000_000_000 });
    expect(await svc(['profile', 'remove', 'never'], { configDir, keychain })).toEqual({
      code: 0,
      stdout: '',
      stderr: "removed profile 'never'; no profile is current now: choose one with 'svc profile use NAME'\n",
    });
    expect(await svc(['profile', 'remove', 'plain'], { configDir, keychain })).toEqual({ code: 0, stdout: '', stderr: "removed profile 'plain'\n" });
    const kept = await svc(['profile', 'remove', 'kept'], { configDir, keychain, env: { SVC_KEYCHAIN_SERVICE: 'svc-work' } });
    expect(kept).toEqual({
      code: 0,
      stdout: '',
      stderr:
        "removed profile 'kept'\n" +
        "svc: warning: the keychain could not be reached (no D-Bus session, DBUS_SESSION_BUS_ADDRESS is unset), so the secrets of 'kept' may be left in it; delete its entries 'profile:kept/…' of service 'svc-work' once it can be reached\n",
    });
  });
});

describe('the built svc with no D-Bus session (spawned)', () => {
  it('login: a missing input is exit 2 before the keychain; with all inputs, one line and exit 1', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-headless-'));
    expect(await spawned(home, ['--url', s.instanceUrl, 'login'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: a user name and a password are needed and there is no terminal to ask on: pass --user NAME, and pipe the password in with --password-stdin\n',
    });
    expect(await spawned(home, ['--url', s.instanceUrl, 'login', '--user', 'demo', '--password-stdin'], { input: password('demo') })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: the application secret is needed and there is no terminal to ask on: set SVC_APPSECRET, or pass --appsecret-stdin\n',
    });
    expect(await spawned(home, ['--url', s.instanceUrl, 'login', '--user', 'demo', '--password-stdin'], { input: password('demo'), env: { SVC_APPSECRET: appsecret() } })).toEqual({
      code: 1,
      stdout: '',
      stderr: REFUSAL,
    });
  });

  it('login --insecure-storage, then whoami by another spelling of the URL, one warning line each; profile show and remove in one line', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-headless-'));
    const login = await spawned(home, ['--url', `${s.instanceUrl}/`, 'login', '--user', 'demo', '--password-stdin', '--insecure-storage'], { input: password('demo'), env: { SVC_APPSECRET: appsecret() } });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(WARNING), expect.stringMatching(/^signed in to .+ as demo \(token in the plain file/)]);
    const who = await spawned(home, ['--url', s.instanceUrl, 'whoami', '-o', 'json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ name: 'demo' });
    expect(who.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(WARNING)]);

    expect((await spawned(home, ['profile', 'add', 'sb', '--url', s.instanceUrl])).code).toBe(0);
    const show = await spawned(home, ['profile', 'show', 'sb', '-o', 'json']);
    expect(show.code, show.stderr).toBe(0);
    // Never signed in as a profile: nothing stored under its name is its own (secretsFit), so the keychain is not asked.
    expect(JSON.parse(show.stdout)).toMatchObject({ tokenStored: false });
    const lines = await spawned(home, ['profile', 'show', 'sb', '-o', 'table']);
    expect(lines.stdout).toMatch(/^token:\s+none \(sign in with 'svc login --profile sb'\)$/m);
    const removed = await spawned(home, ['profile', 'remove', 'sb']);
    expect(removed).toEqual({ code: 0, stdout: '', stderr: "removed profile 'sb'; no profile is current now: choose one with 'svc profile use NAME'\n" });
  });
});

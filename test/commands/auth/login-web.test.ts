/**
 * `svc login --web`: flags → options (pure), then browser sign-ins against a
 * real sandbox over HTTP, the "browser" being test/helpers/browser-flow.ts (a
 * person filling in the sandbox's pages): sign-in, denial, two-factor, a
 * pasted redirect (--no-browser), an answer of another sign-in, the wait
 * limit, and what a stored sign-in then does: commands with it, renewal
 * before expiry and after a 401, a refused renewal, status, token, logout.
 * Tokens go to the plain file (--insecure-storage) unless a test is about
 * the keychain, so the store is what a test checks.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../../src/auth/plain-file.js';
import { browserCommands } from '../../../src/cli/browser.js';
import type { ProcessControl } from '../../../src/cli/deps.js';
import { DEFAULT_WEB_WAIT_MS, toLoginOptions } from '../../../src/commands/auth/login/options.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { totp, decodeBase32 } from '../../../src/sandbox/auth/totp.js';
import { signInAsPerson, type Person, type Visit } from '../../helpers/browser-flow.js';
import { svc, tempConfigDir, testKeychain, testProcesses, type CliRun } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

describe('svc login --web: flags → options', () => {
  it('takes --web, --no-browser, --client-id, --client-secret-stdin and --wait', () => {
    expect(toLoginOptions({ web: true })).toEqual({
      passwordStdin: false,
      appsecretStdin: false,
      insecureStorage: false,
      web: { browser: true, clientSecretStdin: false, waitMs: DEFAULT_WEB_WAIT_MS },
    });
    expect(toLoginOptions({ browser: false, clientId: 'svc-cli', wait: '30s', insecureStorage: true })).toEqual({
      passwordStdin: false,
      appsecretStdin: false,
      insecureStorage: true,
      web: { browser: false, clientId: 'svc-cli', clientSecretStdin: false, waitMs: 30_000 },
    });
  });

  it('refuses what a browser sign-in does not take, and the web flags without --web, in one line each', () => {
    expect(() => toLoginOptions({ web: true, user: 'dana' })).toThrow('--user is for a password login; a browser sign-in (--web) asks for the user and password in the browser');
    expect(() => toLoginOptions({ web: true, passwordStdin: true })).toThrow('--password-stdin is for a password login');
    expect(() => toLoginOptions({ clientId: 'x' })).toThrow('--client-id is for a browser sign-in: add --web');
    expect(() => toLoginOptions({ wait: '1m' })).toThrow('--wait is for a browser sign-in: add --web');
    expect(() => toLoginOptions({ browser: false, clientSecretStdin: true })).toThrow('--client-secret-stdin reads standard input to its end');
    expect(() => toLoginOptions({ web: true, wait: 'forever' })).toThrow("invalid --wait 'forever'");
    // Given, but empty (an unset variable): said so, not "pass --client-id ID".
    expect(() => toLoginOptions({ web: true, clientId: '' })).toThrow(/^--client-id is given an empty value \(an unset variable\?\); give the identifier/);
    expect(() => toLoginOptions({ browser: false, clientId: '' })).toThrow(/^--client-id is given an empty value/);
  });

  it('opens URLs with $BROWSER (a list, %s or the URL last), else the platform opener, never a shell', () => {
    const url = 'https://x.example/a?b=1&c=2';
    expect(browserCommands(url, { BROWSER: 'firefox --new-tab:lynx %s' }, 'linux')).toEqual([
      ['firefox', '--new-tab', url],
      ['lynx', url],
    ]);
    expect(browserCommands(url, { BROWSER: '  ' }, 'linux')).toEqual([['xdg-open', url]]);
    expect(browserCommands(url, {}, 'darwin')).toEqual([['open', url]]);
    expect(browserCommands(url, {}, 'win32')).toEqual([['cmd', '/c', 'start', '""', 'https://x.example/a?b=1^&c=2']]);
    expect(browserCommands(url, { BROWSER: '$(rm -rf ~);evil' }, 'linux')).toEqual([['$(rm', '-rf', '~);evil', url]]);
  });
});

describe('svc login --web: against the sandbox', () => {
  let offsetMs = 0;
  const sandbox = useTestSandbox({ record: true, per: 'test', now: () => Date.now() + offsetMs });
  const clientSecret = (): string => sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
  const demo: Person = { user: 'demo', password: '', decision: 'approve' };
  const person = (p: Partial<Person> = {}): Person => ({ ...demo, password: sandbox.user(p.user ?? 'demo').password, ...p });

  async function profileDir(clientId?: string): Promise<string> {
    offsetMs = 0;
    const dir = tempConfigDir();
    const profiles = await openProfiles(dir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl, ...(clientId ? { clientId } : {}) });
    profiles.use('sb');
    return dir;
  }

  /** Processes whose "browser" is a person going through the pages; `visits` resolves with each visit. */
  function browser(who: Person): { processes: ProcessControl; visit: Promise<Visit>; opened: string[] } {
    const opened: string[] = [];
    let done!: (v: Visit) => void;
    let failed!: (e: unknown) => void;
    const visit = new Promise<Visit>((res, rej) => ((done = res), (failed = rej)));
    const processes: ProcessControl = {
      ...testProcesses(),
      spawnQuiet: async (command, args) => {
        opened.push(command);
        const url = args[args.length - 1] ?? '';
        signInAsPerson(url, who).then(done, failed);
        return true;
      },
    };
    return { processes, visit, opened };
  }

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({ BROWSER: 'test-browser', SVC_CLIENT_SECRET: clientSecret(), ...extra });

  async function signedIn(configDir: string, who: Person = person()): Promise<CliRun> {
    const b = browser(who);
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    await b.visit;
    return r;
  }

  const stored = (configDir: string): Record<string, string> => JSON.parse(readFileSync(join(configDir, PLAIN_FILE_NAME), 'utf8')) as Record<string, string>;
  const tokenRequests = () => sandbox.sandbox.hooks.requests.filter((q) => q.method === 'POST' && q.url.endsWith('/oauth2/v1/token'));

  it('signs in through the browser, keeps the tokens, and every command then works with them', async () => {
    const configDir = await profileDir();
    const b = browser(person());
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    const visit = await b.visit;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(b.opened).toEqual(['test-browser']);
    expect(visit.finalStatus).toBe(200);
    expect(r.stderr).toContain(`${sandbox.instanceUrl}/oauth2/v1/authorize?client_id=svc-cli&redirect_uri=http%3A%2F%2F127.0.0.1%3A`);
    expect(r.stderr).toMatch(/code_challenge=[\w-]{43}&code_challenge_method=S256/);
    expect(r.stderr).toMatch(/\nsigned in to sb as demo with a browser \(client svc-cli; tokens in the plain file, renewed by themselves until \d{4}-\d{2}-\d{2}\)\n$/);
    // The grant is in the store; the profile keeps the client id, never a secret.
    const grant = JSON.parse(stored(configDir)['profile:sb/token'] ?? '{}') as Record<string, unknown>;
    expect(grant).toMatchObject({ type: 'oauth2', clientId: 'svc-cli', accessToken: expect.stringMatching(/^[0-9a-f]{40}$/), refreshToken: expect.stringMatching(/^[0-9a-f]{40}$/) });
    // The client secret is kept too (later commands renew the tokens with it), in the store, never the profile.
    expect(stored(configDir)['profile:sb/clientsecret']).toBe(clientSecret());
    const config = readFileSync(join(configDir, 'config.json'), 'utf8');
    expect(config).toContain('"clientId": "svc-cli"');
    for (const secret of [clientSecret(), grant.accessToken, grant.refreshToken]) expect(config).not.toContain(secret);

    const count = await svc(['accounts', 'count'], { configDir, keychain: testKeychain() });
    expect(count.code, count.stderr).toBe(0);
    expect((JSON.parse(count.stdout) as { count: number }).count).toBeGreaterThan(0);
    const who = await svc(['whoami', '-o', 'json'], { configDir, keychain: testKeychain() });
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ user: expect.anything() });
    const status = await svc(['auth', 'status', '-o', 'json'], { configDir, keychain: testKeychain() });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'sb', credential: 'oauth2', clientId: 'svc-cli', source: 'plain file', valid: true, user: 'demo' });
    const token = await svc(['auth', 'token'], { configDir, keychain: testKeychain() });
    expect(token.stdout).toBe(`${String(grant.accessToken)}\n`);
  });

  it('takes the client id from the profile, and asks for the two-factor code in the browser', async () => {
    const configDir = await profileDir('svc-cli');
    const secure = sandbox.user('secure');
    const b = browser(person({ user: 'secure', otp: () => totp(decodeBase32(secure.otpsecret ?? ''), Math.floor((Date.now() + offsetMs) / 1000)) }));
    const r = await svc(['login', '--web', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    const visit = await b.visit;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('signed in to sb as secure with a browser');
    expect(visit.pages.length).toBeGreaterThanOrEqual(3); // sign-in, one-time code, consent
  });

  it('a denial in the browser is exit 4, and nothing is kept', async () => {
    const configDir = await profileDir();
    const b = browser(person({ decision: 'deny' }));
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    await b.visit;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\nsvc: the sign-in was denied in the browser; run 'svc login --web --profile sb' to try again\n$/);
    expect(() => stored(configDir)).toThrow(); // no plain file was written
    expect(tokenRequests()).toEqual([]);
  });

  it('--no-browser: prints the URL and takes the address pasted on stdin; an answer of another sign-in is refused first', async () => {
    const configDir = await profileDir();
    let pasted!: (line: string) => void;
    const lines: string[] = [];
    let wake: (() => void) | undefined;
    pasted = (line) => {
      lines.push(line);
      wake?.();
    };
    const stdin = {
      isTTY: false,
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = lines.shift();
          if (next !== undefined) yield next;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    };
    // The person watches stderr for the URL, signs in on "another machine" and pastes where the browser ended.
    const stderrLines: string[] = [];
    let visited: Promise<Visit> | undefined;
    const stderr = {
      isTTY: false,
      write(chunk: string | Uint8Array): boolean {
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
        stderrLines.push(text);
        const m = /(http:\/\/127\.0\.0\.1:\d+\/demo\/oauth2\/v1\/authorize\?\S+)/.exec(text);
        if (m && !visited) {
          const url = m[1]!;
          const redirect = new URL(url).searchParams.get('redirect_uri') ?? '';
          visited = signInAsPerson(url, person({ follow: false })).then((v) => {
            pasted('not a url at all\n');
            pasted(`${redirect}?code=${'0'.repeat(40)}&state=someone-elses\n`);
            pasted(`${v.finalUrl}\n`);
            return v;
          });
        }
        return true;
      },
    };
    const { run } = await import('../../../src/cli/run.js');
    const { testDeps } = await import('../../helpers/cli.js');
    const deps = { ...testDeps({ configDir, env: env(), keychain: testKeychain() }), stdin, stderr };
    const code = await run(['login', '--web', '--no-browser', '--client-id', 'svc-cli', '--insecure-storage'], deps);
    const text = stderrLines.join('');
    expect(code, text).toBe(0);
    expect(text).toContain('Open this address in a browser (on any machine):');
    expect(text).toContain('paste here the address it ends on');
    expect(text).toContain("svc: that is not the redirect URL of this sign-in");
    expect(text).toContain('svc: an answer that does not belong to this sign-in was refused (its state does not match); still waiting');
    expect(text).toMatch(/signed in to sb as demo with a browser/);
    expect(tokenRequests()).toHaveLength(1);
  });

  it('gives up after --wait with exit 4, the loopback port closed', async () => {
    const configDir = await profileDir();
    let port = 0;
    const processes: ProcessControl = {
      ...testProcesses(),
      spawnQuiet: async (_c, args) => {
        port = Number(new URL(new URL(args[args.length - 1] ?? '').searchParams.get('redirect_uri') ?? '').port);
        return true;
      },
    };
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage', '--wait', '300ms'], { configDir, env: env(), processes, keychain: testKeychain() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\nsvc: no answer from the browser within 300 ms; run 'svc login --web --profile sb' again \(and --wait DURATION for longer\)\n$/);
    expect(port).toBeGreaterThan(0);
    await expect(fetch(`http://127.0.0.1:${port}/callback`)).rejects.toThrow();
  });

  it('renews the access token before it expires, and after a 401, with one refresh each; the old tokens stop working', async () => {
    const configDir = await profileDir();
    expect((await signedIn(configDir)).code).toBe(0);
    const first = JSON.parse(stored(configDir)['profile:sb/token'] ?? '{}') as { accessToken: string; refreshToken: string; expiresAt: number };
    sandbox.sandbox.hooks.requests.length = 0;

    // The service's clock moves past the access token's hour: the token is refused, renewed, and the command goes on.
    offsetMs = 2 * 3600_000;
    const count = await svc(['accounts', 'count', '--verbose'], { configDir, keychain: testKeychain() });
    expect(count.code, count.stderr).toBe(0);
    expect(count.stderr).toContain('401; sending again with a renewed token');
    expect(tokenRequests()).toHaveLength(1);
    const second = JSON.parse(stored(configDir)['profile:sb/token'] ?? '{}') as { accessToken: string; refreshToken: string };
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    for (const secret of [first.accessToken, first.refreshToken, second.accessToken, second.refreshToken, clientSecret()]) expect(count.stderr).not.toContain(secret);
    expect((await sandbox.call('GET', 'api/v1/accounts/1', { token: first.accessToken })).status).toBe(401);

    // svc's own clock says the access token is about to expire: it is renewed before the request.
    sandbox.sandbox.hooks.requests.length = 0;
    const later = await svc(['accounts', 'count'], { configDir, keychain: testKeychain(), now: () => Date.now() + 3 * 3600_000 });
    expect(later.code, later.stderr).toBe(0);
    expect(tokenRequests()).toHaveLength(1);
    expect(sandbox.sandbox.hooks.requests.filter((q) => q.url.includes('/api/v1/')).map((q) => q.status)).toEqual([200]);
  });

  it('a renewal the service refuses is exit 4, saying to sign in again', async () => {
    const configDir = await profileDir();
    expect((await signedIn(configDir)).code).toBe(0);
    const grant = JSON.parse(stored(configDir)['profile:sb/token'] ?? '{}') as { refreshToken: string };
    // Someone else used the refresh token (single use): svc's copy is worthless now.
    const basic = `Basic ${Buffer.from(`svc-cli:${clientSecret()}`).toString('base64')}`;
    const used = await sandbox.call('POST', 'oauth2/v1/token', { token: null, headers: { authorization: basic }, form: `grant_type=refresh_token&refresh_token=${grant.refreshToken}` });
    expect(used.status).toBe(200);
    const r = await svc(['accounts', 'count'], { configDir, keychain: testKeychain(), now: () => Date.now() + 2 * 3600_000 });
    expect(r.code).toBe(4);
    expect(r.stderr.replace(/^svc: warning: using secrets stored in plain text.*\n/gm, '')).toMatch(/^svc: renewing the sign-in to sb was refused by the service \(invalid_grant[^)]*\); sign in again with 'svc login --web --profile sb'\n$/);
  });

  it('logout revokes both tokens at the service and forgets them', async () => {
    const configDir = await profileDir();
    expect((await signedIn(configDir)).code).toBe(0);
    const grant = JSON.parse(stored(configDir)['profile:sb/token'] ?? '{}') as { accessToken: string; refreshToken: string };
    const r = await svc(['logout'], { configDir, env: { SVC_CLIENT_SECRET: clientSecret() }, keychain: testKeychain() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/signed out of sb: the browser sign-in was revoked\n$/);
    expect(sandbox.sandbox.hooks.requests.filter((q) => q.url.endsWith('/oauth2/v1/revoke'))).toHaveLength(2);
    const basic = `Basic ${Buffer.from(`svc-cli:${clientSecret()}`).toString('base64')}`;
    for (const token of [grant.accessToken, grant.refreshToken]) {
      const info = await sandbox.call('POST', 'oauth2/v1/introspect', { token: null, headers: { authorization: basic }, form: `token=${token}` });
      expect(info.json()).toMatchObject({ active: false });
    }
    expect((await svc(['auth', 'status'], { configDir, keychain: testKeychain() })).code).toBe(4);
  });

  it('keeps no secret in the config dir outside the opt-in plain file, nor on stdout or stderr', async () => {
    const configDir = await profileDir();
    const r = await signedIn(configDir);
    const grant = JSON.parse(stored(configDir)['profile:sb/token'] ?? '{}') as { accessToken: string; refreshToken: string };
    const secrets = [grant.accessToken, grant.refreshToken, clientSecret(), sandbox.user('demo').password];
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
    for (const file of files(configDir).filter((f) => !f.endsWith(PLAIN_FILE_NAME))) {
      const text = readFileSync(file, 'latin1');
      for (const s of secrets) expect(text, file).not.toContain(s);
    }
    for (const s of secrets) expect(r.stdout + r.stderr).not.toContain(s);
    const code = /[?&]code=([0-9a-f]{40})/.exec(sandbox.sandbox.hooks.requests.map((q) => q.url).join(' '));
    if (code) expect(r.stderr).not.toContain(code[1]);
  });
});

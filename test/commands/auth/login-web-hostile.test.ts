/**
 * A browser sign-in against what an attacker or a broken server can do,
 * through the real CLI (in-process) and a real sandbox over HTTP:
 *
 * - a stored grant that is damaged (cut short, wrong types, a prototype key,
 *   not text): every command refuses it in one line, never sends it as a
 *   bearer token nor prints it (it holds the refresh token); logout forgets it;
 * - a token endpoint that answers a renewal with what svc cannot use (not
 *   Bearer, tokens with blanks, megabytes, an error text with line breaks and
 *   terminal escapes): one line, and the stored grant stays as it was;
 * - the loopback server and the pasted address: a flood of other sign-ins'
 *   answers and a caller that never finishes its request, an error with this
 *   sign-in's state, a pasted address on another port.
 *
 * The sandbox's own faults (hooks.failNext) stand in for the broken server.
 */
import { connect } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../../src/auth/plain-file.js';
import type { ProcessControl } from '../../../src/cli/deps.js';
import { browserCommands } from '../../../src/cli/browser.js';
import { toLoginOptions } from '../../../src/commands/auth/login/options.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { signInAsPerson, type Visit } from '../../helpers/browser-flow.js';
import { svc, tempConfigDir, testDeps, testKeychain, testProcesses, type CliRun } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

const sandbox = useTestSandbox({ record: true });
const clientSecret = (): string => sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
const basic = (): string => `Basic ${Buffer.from(`svc-cli:${clientSecret()}`).toString('base64')}`;

/** What a person reads on stderr: the plain file's warning (one line per command) left out. */
const told = (r: CliRun): string => r.stderr.replace(/^svc: warning: using secrets stored in plain text.*\n/gm, '');

interface Grant {
  type: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
  refreshExpiresAt?: number;
  clientId: string;
}

/** A config dir with profile sb (plain file, client svc-cli) holding a live grant of demo's; `stored` turns it into what the file keeps. */
async function signedIn(stored: (g: Grant) => unknown = (g) => JSON.stringify(g)): Promise<{ configDir: string; grant: Grant; file: string }> {
  const configDir = tempConfigDir();
  const profiles = await openProfiles(configDir);
  profiles.save({ name: 'sb', url: sandbox.instanceUrl, insecureStorage: true, clientId: 'svc-cli', keychainUrl: sandbox.instanceUrl });
  profiles.use('sb');
  const password = encodeURIComponent(sandbox.user('demo').password);
  const answer = await sandbox.call('POST', 'oauth2/v1/token', { token: null, headers: { authorization: basic() }, form: `grant_type=password&username=demo&password=${password}` });
  expect(answer.status, answer.text).toBe(200);
  const t = answer.json<{ access_token: string; refresh_token: string; expires_in: number }>();
  const now = Math.floor(Date.now() / 1000);
  const grant: Grant = { type: 'oauth2', accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: now + t.expires_in, clientId: 'svc-cli' };
  const file = join(configDir, PLAIN_FILE_NAME);
  writeFileSync(file, JSON.stringify({ 'profile:sb/token': stored(grant), 'profile:sb/clientsecret': clientSecret() }), { mode: 0o600 });
  sandbox.sandbox.hooks.requests.length = 0;
  return { configDir, grant, file };
}

const storedEntry = (file: string): unknown => (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)['profile:sb/token'];
const run = (configDir: string, argv: string[], now?: () => number): Promise<CliRun> => svc(argv, { configDir, keychain: testKeychain(), ...(now ? { now } : {}) });

describe('a stored browser sign-in that is damaged', () => {
  const DAMAGED = /^svc: the stored browser sign-in is damaged \([^\n]+\); sign in again with 'svc login --web', or forget it with 'svc logout'\n$/;
  const cases: [string, (g: Grant) => unknown][] = [
    ['cut short', (g) => JSON.stringify(g).slice(0, 60)],
    ['with an expiry that is not a number', (g) => JSON.stringify({ ...g, expiresAt: 'soon' })],
    ['behind a __proto__ key', (g) => `{"__proto__":${JSON.stringify(g)}}`],
    ['with a client id that is no identifier (a line break, non-ASCII)', (g) => JSON.stringify({ ...g, clientId: 'svc-cli\nsvc: ü' })],
    ['not text at all', () => 5],
  ];

  it.each(cases)('%s: every command refuses it in one line (exit 4), never sends or prints it; logout forgets it', async (_what, damage) => {
    const { configDir, grant, file } = await signedIn(damage);
    for (const argv of [['accounts', 'count'], ['auth', 'token'], ['auth', 'status'], ['whoami']]) {
      const r = await run(configDir, argv);
      expect({ argv, code: r.code, stdout: r.stdout }).toEqual({ argv, code: 4, stdout: '' });
      expect(told(r)).toMatch(DAMAGED);
      for (const secret of [grant.refreshToken, grant.accessToken, clientSecret()]) expect(r.stderr).not.toContain(secret);
    }
    // Nothing of it went to the service as a bearer token.
    expect(sandbox.sandbox.hooks.requests.filter((q) => String(q.headers.authorization ?? '').startsWith('Bearer'))).toEqual([]);

    const out = await run(configDir, ['logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(told(out)).toBe('signed out of sb: the stored browser sign-in was damaged, so it was forgotten here without revoking its tokens (they end by themselves)\n');
    expect(storedEntry(file)).toBeUndefined();
    const after = await run(configDir, ['auth', 'status']);
    expect(after.code).toBe(4);
    expect(told(after)).toMatch(/^svc: not signed in to sb/);
  });
});

describe('what the token endpoint answers to a renewal', () => {
  const JSON_HEADERS = { 'content-type': 'application/json' };
  const tokens = (extra: Record<string, unknown>): string =>
    JSON.stringify({ access_token: 'a'.repeat(40), token_type: 'Bearer', expires_in: 3600, refresh_token: 'b'.repeat(40), refresh_token_expires_in: 8_640_000, ...extra });
  const cases: [string, number, string, number, RegExp][] = [
    ['a token_type other than Bearer', 200, tokens({ token_type: 'mac' }), 1, /failed: the service's answer is not valid OAuth 2\.0 \(token_type must be Bearer, not 'mac'\)/],
    ['a DPoP-bound token, which svc cannot send', 200, tokens({ token_type: 'DPoP' }), 1, /token_type must be Bearer, not 'dpop'/],
    ['an access token with blanks and non-ASCII', 200, tokens({ access_token: 'a b ü' }), 1, /its access_token is not 1 to 4096 visible ASCII characters/],
    ['an answer of 200 KB', 200, tokens({ padding: 'x'.repeat(200_000) }), 1, /^svc: the service's answer to POST \S+\/oauth2\/v1\/token is over 64 KiB; no OAuth 2\.0 answer is that long\n$/],
    [
      'an error text with line breaks and terminal escapes',
      400,
      JSON.stringify({ error: 'invalid_grant', error_description: 'gone\nsvc: signed in as admin\u001b[2J\u202e' }),
      4,
      /refused by the service \(invalid_grant: gone svc: signed in as admin \[2J\); sign in again/,
    ],
    // The service failing is not a malformed answer: the status and the start of its text, as for any request.
    ['a 503 page', 503, '<html><body>Down for maintenance</body></html>', 1, /^svc: POST \S+\/oauth2\/v1\/token failed with 503: <html><body>Down for maintenance<\/body><\/html>\n$/],
    ['a 500 with an RFC 6749 server_error', 500, JSON.stringify({ error: 'server_error', error_description: 'database down' }), 1, /^svc: POST \S+\/oauth2\/v1\/token failed with 500: \{"error":"server_error","error_description":"database down"\}\n$/],
    // GitHub's way: a refusal with 200.
    ['a 200 carrying an RFC 6749 error', 200, JSON.stringify({ error: 'invalid_grant', error_description: 'code expired\u001b[2J' }), 4, /^svc: renewing the sign-in to sb was refused by the service \(invalid_grant: code expired \[2J\); sign in again with 'svc login --web --profile sb'\n$/],
  ];

  it.each(cases)('%s: one line, and the stored grant stays as it was', async (_what, status, body, code, message) => {
    const { configDir, file } = await signedIn((g) => JSON.stringify({ ...g, expiresAt: 0 }));
    const before = storedEntry(file);
    sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/oauth2/v1/token', fault: { status, body, headers: JSON_HEADERS } });
    const r = await run(configDir, ['accounts', 'count']);
    expect(r.code, r.stderr).toBe(code);
    expect(r.stdout).toBe('');
    expect(told(r)).toMatch(/^svc: [^\n]*\n$/);
    expect(told(r)).toMatch(message);
    expect(r.stderr).not.toContain('\u001b');
    expect(storedEntry(file)).toBe(before);
    // The grant svc kept still works: the next command renews it for real, and only the access token is printed.
    const token = await run(configDir, ['auth', 'token']);
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout).toMatch(/^[0-9a-f]{40}\n$/);
  });

  it('a renewal answered without a refresh token keeps the one svc has (RFC 6749 section 6), which still works later', async () => {
    const { configDir, grant, file } = await signedIn((g) => JSON.stringify({ ...g, expiresAt: 0 }));
    const access = sandbox.token('demo');
    sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/oauth2/v1/token', fault: { status: 200, body: JSON.stringify({ access_token: access, token_type: 'Bearer', expires_in: 3600 }), headers: JSON_HEADERS } });
    const r = await run(configDir, ['accounts', 'count']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(String(storedEntry(file)))).toMatchObject({ accessToken: access, refreshToken: grant.refreshToken });
    // Two hours on, svc renews with the refresh token it kept.
    const later = await run(configDir, ['accounts', 'count'], () => Date.now() + 2 * 3600_000);
    expect(later.code, later.stderr).toBe(0);
    expect(JSON.parse(String(storedEntry(file)))).not.toMatchObject({ refreshToken: grant.refreshToken });
  });
});

describe('svc login --web against hostile answers on the loopback port', () => {
  async function profileDir(): Promise<string> {
    const dir = tempConfigDir();
    const profiles = await openProfiles(dir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl });
    profiles.use('sb');
    return dir;
  }
  const env = (): Record<string, string> => ({ BROWSER: 'test-browser', SVC_CLIENT_SECRET: clientSecret() });
  const demo = () => ({ user: 'demo', password: sandbox.user('demo').password, decision: 'approve' as const });

  /** A "browser" that runs `act` with the authorize URL svc opened. */
  function opening(act: (url: URL) => Promise<unknown>): { processes: ProcessControl; done: Promise<unknown> } {
    let done: Promise<unknown> = Promise.resolve();
    const processes: ProcessControl = {
      ...testProcesses(),
      spawnQuiet: async (_command, args) => {
        done = act(new URL(args[args.length - 1] ?? ''));
        return true;
      },
    };
    return { processes, get done() { return done; } };
  }

  it('--verbose shows the requests, never the code, the PKCE verifier, the tokens or the client secret', async () => {
    const configDir = await profileDir();
    const b = opening((url) => signInAsPerson(url.href, demo()));
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage', '--verbose'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    await b.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/→ POST \S+\/oauth2\/v1\/token/);
    const exchange = sandbox.sandbox.hooks.requests.find((q) => q.url.endsWith('/oauth2/v1/token'))?.body as Record<string, string>;
    const grant = JSON.parse(String(storedEntry(join(configDir, PLAIN_FILE_NAME)))) as Grant;
    const secrets = [exchange.code, exchange.code_verifier, grant.accessToken, grant.refreshToken, clientSecret()];
    expect(secrets.every((x) => typeof x === 'string' && x.length >= 32)).toBe(true);
    for (const secret of secrets) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('a code exchange answered with tokens svc could not send: exit 1 in one line, nothing kept', async () => {
    const configDir = await profileDir();
    const body = JSON.stringify({ access_token: 'x\u0000y z', token_type: 'Bearer', expires_in: 3600, refresh_token: 'b'.repeat(40) });
    sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/oauth2/v1/token', fault: { status: 200, body, headers: { 'content-type': 'application/json' } } });
    const b = opening((url) => signInAsPerson(url.href, demo()));
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    await b.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\nsvc: exchanging the code for tokens failed: the service's answer is not valid OAuth 2\.0 \(its access_token is not 1 to 4096 visible ASCII characters\)\n$/);
    expect(existsSync(join(configDir, PLAIN_FILE_NAME))).toBe(false);
  });

  it.each([
    ['a 503 page', 503, '<html><body>Down for maintenance</body></html>', 1, /\nsvc: POST \S+\/oauth2\/v1\/token failed with 503: <html><body>Down for maintenance<\/body><\/html>\n$/],
    ['a 200 carrying an RFC 6749 error', 200, JSON.stringify({ error: 'invalid_grant', error_description: 'code expired' }), 4, /\nsvc: exchanging the code for tokens was refused by the service \(invalid_grant: code expired\); check the client id and secret, then run 'svc login --web --profile sb' again\n$/],
  ] as const)('a code exchange answered with %s: one line with the service\'s words, nothing kept', async (_what, status, body, code, message) => {
    const configDir = await profileDir();
    sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/oauth2/v1/token', fault: { status, body, headers: { 'content-type': status === 200 ? 'application/json' : 'text/html' } } });
    const b = opening((url) => signInAsPerson(url.href, demo()));
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    await b.done;
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(existsSync(join(configDir, PLAIN_FILE_NAME))).toBe(false);
  });

  it('an answer with this sign-in’s state but no code: exit 4 in one line, nothing sent to the token endpoint', async () => {
    const configDir = await profileDir();
    const b = opening(async (url) => fetch(`${url.searchParams.get('redirect_uri') ?? ''}?state=${url.searchParams.get('state') ?? ''}`));
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    expect(((await b.done) as Response).status).toBe(200);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\nsvc: the browser's answer to this sign-in had no authorization code, so nothing was exchanged; run 'svc login --web --profile sb' to try again\n$/);
    expect(sandbox.sandbox.hooks.requests.filter((q) => q.url.endsWith('/oauth2/v1/token'))).toEqual([]);
    expect(existsSync(join(configDir, PLAIN_FILE_NAME))).toBe(false);
  });

  it('a flood of other sign-ins’ answers and a caller that never finishes its request neither stop the sign-in nor flood the terminal', async () => {
    const configDir = await profileDir();
    const b = opening(async (url) => {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const slow = connect(Number(redirect.port), '127.0.0.1');
      slow.on('error', () => undefined);
      slow.write('GET /callback?code=x&state=y HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // and never the end of its headers
      const junk = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${redirect.href}?code=${i}&state=other-${i}`).then((r) => r.status)));
      expect(new Set(junk)).toEqual(new Set([400]));
      return signInAsPerson(url.href, demo());
    });
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    await b.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/refused \(its state does not match\)/g)).toHaveLength(3);
    expect(r.stderr).toContain('svc: further answers that do not belong to this sign-in are refused without a word\n');
    expect(r.stderr).toMatch(/signed in to sb as demo with a browser/);
  });

  it('an answer with this sign-in’s state and an error text with line breaks and escapes: exit 4 in one line', async () => {
    const configDir = await profileDir();
    const b = opening(async (url) => {
      const redirect = url.searchParams.get('redirect_uri') ?? '';
      const description = encodeURIComponent('no\nsvc: signed in to sb as admin\u001b]0;pwned\u0007');
      return fetch(`${redirect}?error=server_error&error_description=${description}&state=${url.searchParams.get('state') ?? ''}`);
    });
    const r = await svc(['login', '--web', '--client-id', 'svc-cli', '--insecure-storage'], { configDir, env: env(), processes: b.processes, keychain: testKeychain() });
    await b.done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\nsvc: the sign-in failed \(server_error: no svc: signed in to sb as admin \]0;pwned\); run 'svc login --web --profile sb' to try again\n$/);
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });

  it('--no-browser: a pasted address on another port is not this sign-in’s, even with its state and code', async () => {
    const configDir = await profileDir();
    const lines: string[] = [];
    let wake: (() => void) | undefined;
    const paste = (line: string): void => {
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
    let visited: Promise<Visit> | undefined;
    const stderrText: string[] = [];
    const stderr = {
      isTTY: false,
      write(chunk: string | Uint8Array): boolean {
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
        stderrText.push(text);
        const m = /(http:\/\/127\.0\.0\.1:\d+\/demo\/oauth2\/v1\/authorize\?\S+)/.exec(text);
        if (m && !visited) {
          visited = signInAsPerson(m[1]!, { ...demo(), follow: false }).then((v) => {
            const elsewhere = new URL(v.finalUrl);
            elsewhere.port = String(Number(elsewhere.port) === 65535 ? 1 : Number(elsewhere.port) + 1);
            paste(`${elsewhere.href}\n`);
            paste(`${v.finalUrl.replace('http://127.0.0.1:', 'http://localhost:')}\n`);
            paste(`${v.finalUrl}\n`);
            return v;
          });
        }
        return true;
      },
    };
    const { run: runCli } = await import('../../../src/cli/run.js');
    const deps = { ...testDeps({ configDir, env: env(), keychain: testKeychain() }), stdin, stderr };
    const code = await runCli(['login', '--web', '--no-browser', '--client-id', 'svc-cli', '--insecure-storage'], deps);
    const text = stderrText.join('');
    expect(code, text).toBe(0);
    expect(text.match(/svc: that is not the redirect URL of this sign-in/g)).toHaveLength(2);
    expect(text).toMatch(/signed in to sb as demo with a browser/);
  });
});

describe('flags and the browser opener', () => {
  it('refuses a --wait longer than a timer holds (it would give up at once), in one line', () => {
    expect(() => toLoginOptions({ web: true, wait: '30d' })).toThrow(/^--wait '30d' is too long; use at most /);
    expect(toLoginOptions({ web: true, wait: '24d' }).web?.waitMs).toBe(24 * 86_400_000);
  });

  it("on Windows, escapes every character cmd reads as its own, so an instance URL's path cannot run a command", () => {
    const url = 'https://x.example/a|calc&b^c<d>(e)/oauth2/v1/authorize?client_id=svc-cli&state=s';
    expect(browserCommands(url, {}, 'win32')).toEqual([['cmd', '/c', 'start', '""', 'https://x.example/a^|calc^&b^^c^<d^>^(e^)/oauth2/v1/authorize?client_id=svc-cli^&state=s']]);
  });
});

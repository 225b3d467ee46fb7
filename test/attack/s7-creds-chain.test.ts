/**
 * s7-creds: attack on the credential chain and the auth commands (README "Signing in": --token-file,
 * SVC_TOKEN, SVC_TOKEN_FILE, the keychain, the opt-in plain file; "Exit codes"). The sandbox is this
 * file's own; a hostile instance is a real node:http server on 127.0.0.1 that records every
 * Authorization header it is sent.
 *
 * Tests marked FINDING fail on HEAD and pass once the bug is fixed; tests marked HELD pass now.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountName } from '../../src/auth/store.js';
import { svc, tempConfigDir, testKeychain } from '../helpers/cli.js';
import { keychainAvailable } from '../helpers/keychain.js';
import { useTestSandbox } from '../helpers/sandbox.js';
import { noSecretService } from '../cli/no-secret-service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const s = useTestSandbox();
const available = await keychainAvailable();
const appsecret = (): string => s.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';

/** A hostile instance: answers 401 to everything and keeps every Authorization header it got. */
let hostile: { server: Server; url: string; auths: string[] };
beforeAll(async () => {
  const auths: string[] = [];
  const server = createServer((q, r) => {
    if (q.headers.authorization) auths.push(q.headers.authorization);
    r.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Unauthorized"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  hostile = { server, url: `http://127.0.0.1:${port}/stolen`, auths };
});
afterAll(() => new Promise<void>((resolve) => hostile.server.close(() => resolve())));

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 's7-creds-chain-'));
}

/** A config dir with profile 'prod' at the sandbox, signed in as demo with --insecure-storage; its token. */
async function signedIn(): Promise<{ configDir: string; token: string }> {
  const configDir = tempConfigDir();
  expect((await svc(['profile', 'add', 'prod', '--url', s.instanceUrl], { configDir })).code).toBe(0);
  const login = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
    configDir,
    env: { SVC_APPSECRET: appsecret() },
    stdin: [s.user('demo').password],
  });
  expect(login.code, login.stderr).toBe(0);
  const token = (JSON.parse(readFileSync(join(configDir, 'credentials.insecure.json'), 'utf8')) as Record<string, string>)['profile:prod/token'] ?? '';
  expect(token).toMatch(/^[0-9a-f]{40}$/);
  return { configDir, token };
}

function spawned(args: string[], env: Record<string, string>) {
  const home = tmp();
  const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: home, SVC_CONFIG_DIR: join(home, 'config'), NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; guarded: boolean }>((resolve) => {
    let guarded = false;
    // A deadline, not a wait: a hung svc is killed so the test can report it.
    const guard = setTimeout(() => {
      guarded = true;
      child.kill('SIGKILL');
    }, 12_000);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stderr, guarded });
    });
  });
}

describe("FINDING: --profile with --url (or SVC_URL) sends the profile's token to the other URL", () => {
  it("svc --profile prod --url <elsewhere> whoami: prod's token never reaches elsewhere", async () => {
    const { configDir, token } = await signedIn();
    hostile.auths.length = 0;
    const r = await svc(['--profile', 'prod', '--url', hostile.url, 'whoami'], { configDir });
    expect(r.code).not.toBe(0);
    expect(hostile.auths, "prod's token was sent to the --url instance").not.toContain(`Bearer ${token}`);
  });

  it("SVC_URL=<elsewhere> svc --profile prod whoami (a stale SVC_URL in the shell): prod's token never reaches elsewhere", async () => {
    const { configDir, token } = await signedIn();
    hostile.auths.length = 0;
    const r = await svc(['--profile', 'prod', 'whoami'], { configDir, env: { SVC_URL: hostile.url } });
    expect(r.code).not.toBe(0);
    expect(hostile.auths, "prod's token was sent to SVC_URL").not.toContain(`Bearer ${token}`);
  });
});

describe.skipIf(!available)("FINDING: keychain secrets are keyed by the profile's name only, so they outlive a URL change or the profile itself (needs a Secret Service)", () => {
  /** Profile 'prod' at the sandbox, signed in to a keychain of the test's own. */
  async function keychainSignedIn() {
    const configDir = tempConfigDir();
    const keychain = testKeychain();
    expect((await svc(['profile', 'add', 'prod', '--url', s.instanceUrl], { configDir })).code).toBe(0);
    const login = await svc(['login', '--user', 'demo', '--password-stdin'], { configDir, keychain, env: { SVC_APPSECRET: appsecret() }, stdin: [s.user('demo').password] });
    expect(login.code, login.stderr).toBe(0);
    const token = (await keychain().get(accountName('profile:prod', 'token'))) ?? '';
    expect(token).toMatch(/^[0-9a-f]{40}$/);
    return { configDir, keychain, token };
  }

  it('README "A new URL drops the secrets stored for the old one, so a token never goes to another instance": not when the keychain was unreachable at that moment', async () => {
    const { configDir, keychain, token } = await keychainSignedIn();
    // Over SSH without a D-Bus session, say: svc warns that secrets may be left, and saves the new URL.
    const moved = await svc(['profile', 'add', 'prod', '--url', hostile.url], { configDir, keychain: noSecretService().keychain });
    hostile.auths.length = 0;
    // Back at the desktop.
    const r = await svc(['whoami'], { configDir, keychain });
    expect(hostile.auths, `the old instance's token went to the new URL (profile add said: ${moved.stderr})`).not.toContain(`Bearer ${token}`);
  });

  it('a profile removed while the keychain was unreachable, then added again for another instance, sends the old token there', async () => {
    const { configDir, keychain, token } = await keychainSignedIn();
    expect((await svc(['profile', 'remove', 'prod'], { configDir, keychain: noSecretService().keychain })).code).toBe(0);
    expect((await svc(['profile', 'add', 'prod', '--url', hostile.url], { configDir, keychain })).code).toBe(0);
    const show = await svc(['profile', 'show', '-o', 'json'], { configDir, keychain });
    hostile.auths.length = 0;
    await svc(['whoami'], { configDir, keychain });
    expect(JSON.parse(show.stdout), 'a profile never signed in reports a stored token').toMatchObject({ tokenStored: false });
    expect(hostile.auths).not.toContain(`Bearer ${token}`);
  });
});

describe('FINDING: a damaged credentials.insecure.json is "unexpected error" on every command, and the JSON error can show part of a secret', () => {
  const SECRET = 'Ly5UyJq22WtfKW2f1o39sXO2aw0tXkka';
  /** The plain file after a bad hand edit: a secret that lost its quotes. */
  function damage(configDir: string, token: string): void {
    writeFileSync(join(configDir, 'credentials.insecure.json'), `{"profile:prod/token": "${token}", "profile:prod/appsecret": ${SECRET}}`, { mode: 0o600 });
  }

  it.each(['whoami', 'auth status', 'logout', 'profile show'])('svc %s: one line naming the file and the fix, and no part of a secret', async (command) => {
    const argv = command.split(' ');
    const { configDir, token } = await signedIn();
    damage(configDir, token);
    const r = await svc(argv, { configDir });
    expect(r.stderr, 'part of the application secret on stderr').not.toContain(SECRET.slice(0, 8));
    expect(r.stderr).not.toContain(token.slice(0, 8));
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).toContain('credentials.insecure.json');
  });

  it('svc profile remove: the warning shows no part of a secret', async () => {
    const { configDir, token } = await signedIn();
    damage(configDir, token);
    const r = await svc(['profile', 'remove', 'prod'], { configDir });
    expect(r.stderr).not.toContain(SECRET.slice(0, 8));
  });
});

describe('FINDING: SVC_TOKEN and token files are not checked as a token svc can send (a stored grant is: /^[\\x21-\\x7e]{1,4096}$/)', () => {
  it('SVC_TOKEN with a line break inside: exit 2 naming SVC_TOKEN (today exit 1, "Invalid character in header content [\\"authorization\\"]")', async () => {
    const r = await svc(['whoami'], { env: { SVC_URL: s.instanceUrl, SVC_TOKEN: `${s.token('demo')}\nsecond` } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SVC_TOKEN/);
    expect(r.stderr).not.toMatch(/Invalid character in header/);
  });

  it('a token file of two lines: exit 2 naming the file', async () => {
    const file = join(tmp(), 'token');
    writeFileSync(file, `${s.token('demo')}\n# rotated 2025-01-01\n`, { mode: 0o600 });
    const r = await svc(['whoami'], { env: { SVC_URL: s.instanceUrl, SVC_TOKEN_FILE: file } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
  });

  it('a 5 MB token file (a wrong path: a log, a dump): exit 2 naming the file, and nothing is sent (today: "failed with 431", exit 1)', async () => {
    const file = join(tmp(), 'token');
    writeFileSync(file, 'a'.repeat(5_000_000), { mode: 0o600 });
    const r = await svc(['whoami'], { env: { SVC_URL: s.instanceUrl, SVC_TOKEN_FILE: file } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
  });

  it('SVC_TOKEN_FILE is a FIFO nobody writes to: svc does not hang (spawned; killed after 12 s)', async () => {
    const dir = tmp();
    const fifo = join(dir, 'token');
    const made = spawn('mkfifo', ['-m', '600', fifo]);
    await new Promise((resolve) => made.on('close', resolve));
    expect(existsSync(fifo)).toBe(true);
    const r = await spawned(['whoami', '--timeout', '2s'], { SVC_URL: s.instanceUrl, SVC_TOKEN_FILE: fifo });
    expect(r.guarded, 'svc was still reading the FIFO after 12 s').toBe(false);
    expect(r.stderr).toContain(fifo);
  }, 20_000);
});

describe('FINDING: svc logout cannot forget a token when the service cannot be reached', () => {
  it('logout of a profile whose instance is gone: the stored token is forgotten here, with a warning (a browser sign-in already is)', async () => {
    const configDir = tempConfigDir();
    const url = `http://127.0.0.1:${await closedPort()}/demo`;
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { gone: { url, identifier: 'svc-x', insecureStorage: true, user: 'demo' } }, current: 'gone' }));
    const file = join(configDir, 'credentials.insecure.json');
    writeFileSync(file, JSON.stringify({ 'profile:gone/token': 'ab'.repeat(20) }), { mode: 0o600 });
    const r = await svc(['logout', '--retries', '0'], { configDir });
    const left = existsSync(file) ? readFileSync(file, 'utf8') : '';
    expect(left, `logout said: ${r.stderr}`).not.toContain('ab'.repeat(20));
    expect(r.stderr).toMatch(/warning/);
  });
});

describe('FINDING: svc login with SVC_TOKEN set signs in without saying the next commands will not use that sign-in', () => {
  it('login succeeds, then whoami uses the stale SVC_TOKEN: login warns as gh does for GH_TOKEN', async () => {
    const configDir = tempConfigDir();
    expect((await svc(['profile', 'add', 'prod', '--url', s.instanceUrl], { configDir })).code).toBe(0);
    const env = { SVC_TOKEN: 'stale0000000000000000000000000000000000', SVC_APPSECRET: appsecret() };
    const login = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], { configDir, env, stdin: [s.user('demo').password] });
    expect(login.code, login.stderr).toBe(0);
    const who = await svc(['whoami'], { configDir, env });
    expect(who.code).toBe(4);
    expect(login.stderr, 'login said nothing about SVC_TOKEN').toMatch(/SVC_TOKEN/);
  });
});

describe('HELD: no secret reaches stdout, stderr or config.json on the paths that could print one', () => {
  it('a refused token with --verbose and SVC_DEBUG=1: the token is nowhere in the output; exit 4 naming SVC_TOKEN and the fix', async () => {
    const bad = 'f00d'.repeat(10);
    for (const debug of [{}, { SVC_DEBUG: '1' }]) {
      for (const argv of [['whoami', '--verbose'], ['auth', 'status', '--verbose', '-o', 'json'], ['accounts', 'count', '--verbose'], ['api', 'accounts', '--verbose']]) {
        const r = await svc(argv, { env: { SVC_URL: s.instanceUrl, SVC_TOKEN: bad, ...debug } });
        expect(r.code, argv.join(' ')).toBe(4);
        expect(r.stdout + r.stderr).not.toContain(bad);
        if (!('SVC_DEBUG' in debug)) expect(r.stderr).toMatch(/authorization: Bearer \[redacted\]/);
      }
    }
  });

  it('after a login: auth status -o json, profile show -o json and config.json hold neither the token nor the password nor the appsecret', async () => {
    const { configDir, token } = await signedIn();
    const status = await svc(['auth', 'status', '-o', 'json', '--verbose'], { configDir });
    expect(status.code, status.stderr).toBe(0);
    const show = await svc(['profile', 'show', '-o', 'json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({ tokenStored: true, tokenStore: 'plain file' });
    const config = readFileSync(join(configDir, 'config.json'), 'utf8');
    for (const secret of [token, s.user('demo').password, appsecret()]) {
      expect(status.stdout + status.stderr + show.stdout + show.stderr + config).not.toContain(secret);
    }
  });

  it('a wrong password with --verbose: exit 4, the password is nowhere in the output', async () => {
    const configDir = tempConfigDir();
    const r = await svc(['--url', s.instanceUrl, 'login', '--user', 'demo', '--password-stdin', '--insecure-storage', '--verbose'], {
      configDir,
      env: { SVC_APPSECRET: appsecret() },
      stdin: ['Wr0ngPassw0rd-s7'],
    });
    expect(r.code).toBe(4);
    expect(r.stdout + r.stderr).not.toContain('Wr0ngPassw0rd-s7');
    expect(r.stdout + r.stderr).not.toContain(appsecret());
  });
});

describe('HELD: token files', () => {
  it('a token file with a BOM and CRLF is read (trimmed); a world-readable one works and warns with the chmod fix', async () => {
    const dir = tmp();
    const bom = join(dir, 'bom');
    writeFileSync(bom, `\ufeff${s.token('demo')}\r\n`, { mode: 0o600 });
    const a = await svc(['auth', 'status', '-o', 'json'], { env: { SVC_URL: s.instanceUrl, SVC_TOKEN_FILE: bom } });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toBe('');
    const open = join(dir, 'open');
    writeFileSync(open, s.token('demo'));
    chmodSync(open, 0o644);
    const b = await svc(['auth', 'status', '-o', 'json'], { env: { SVC_URL: s.instanceUrl, SVC_TOKEN_FILE: open } });
    expect(b.code).toBe(0);
    expect(b.stderr).toBe(`svc: warning: token file ${open} can be read by others (mode 644); run chmod 600 ${open}\n`);
  });

  it('a token file that is a directory, missing or empty: exit 2, one line naming it', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'empty'), ' \n', { mode: 0o600 });
    for (const file of [join(dir, 'sub'), join(dir, 'missing'), join(dir, 'empty')]) {
      const r = await svc(['whoami', '--token-file', file], { env: { SVC_URL: s.instanceUrl } });
      expect(r.code, file).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(file);
    }
  });

  it('not signed in: auth status is exit 4 naming svc login, SVC_TOKEN and SVC_TOKEN_FILE', async () => {
    const configDir = tempConfigDir();
    const r = await svc(['auth', 'status'], { configDir, env: { SVC_URL: s.instanceUrl, SVC_TOKEN: '', SVC_TOKEN_FILE: '' }, keychain: noSecretService().keychain });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^svc: not signed in to .*: run 'svc login --url .*', or set SVC_TOKEN or SVC_TOKEN_FILE\n$/);
  });
});

describe("FINDING: the service's refusal of a login reaches the terminal raw (escape sequences included)", () => {
  it('a 401 to POST auth/v1/login whose text holds escape sequences: "login failed: …" carries no control character', async () => {
    const server = createServer((_q, r) => r.writeHead(401, { 'content-type': 'text/plain' }).end('\u001b]0;pwned\u0007\u001b[2J Invalid credentials'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/x`;
      const r = await svc(['--url', url, 'login', '--user', 'u', '--password-stdin', '--insecure-storage'], { env: { SVC_APPSECRET: 'x' }, stdin: ['pw'] });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/login failed/);
      expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

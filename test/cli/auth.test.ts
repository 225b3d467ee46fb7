/**
 * `svc whoami`, `svc auth status` and `svc auth token`, in-process against a
 * real sandbox on 127.0.0.1, with temporary config dirs and a keychain under
 * a test service of its own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeychainStore } from '../../src/auth/keychain.js';
import { accountName, type CredentialStore } from '../../src/auth/store.js';
import { openProfiles } from '../../src/config/profiles.js';
import { table } from '../../src/sandbox/schema.js';
import { svc as run, type CliRun } from '../helpers/cli.js';
import { keychainAvailable, NO_KEYCHAIN } from '../helpers/keychain.js';
import { useTestSandbox } from '../helpers/sandbox.js';
let hasKeychain = false;
let configDir: string;
let keychain: CredentialStore;

function svc(argv: string[], opts: { tty?: boolean; env?: Record<string, string> } = {}): Promise<CliRun> {
  return run(argv, { ...opts, env: { NO_COLOR: '1', ...opts.env }, configDir, keychain: () => keychain });
}

/** A 0600 file holding the token. */
function tokenFile(token: string): string {
  const file = join(configDir, `token-${randomBytes(3).toString('hex')}`);
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

interface Status {
  profile: string | null;
  instanceUrl: string;
  source: string;
  tokenFile?: string;
  valid: boolean;
  user: string | null;
  expires: number | null;
  credential: 'token' | 'oauth2';
}

async function status(argv: string[], env: Record<string, string> = {}): Promise<Status> {
  const r = await svc(['auth', 'status', ...argv, '-o', 'json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

const sb = useTestSandbox();

beforeAll(async () => {
  hasKeychain = await keychainAvailable();
});

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-auth-test-'));
  keychain = createKeychainStore({ service: `svc-test-${randomBytes(4).toString('hex')}` });
});

describe('svc whoami', () => {
  it("shows the demo user as an admin: the service's object as data", async () => {
    const r = await svc(['whoami'], { env: { SVC_URL: sb.instanceUrl, SVC_TOKEN: sb.token('demo') } });
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout) as { name: string; admin: boolean; user: number; permissions: Record<string, boolean> };
    expect(info).toMatchObject({ name: 'demo', admin: true, user: sb.user('demo').id });
    expect(r.stderr).toBe('');
  });

  it('shows details and a permissions table on a terminal and without one', async () => {
    for (const tty of [true, false]) {
      const r = await svc(['--url', sb.instanceUrl, 'whoami', '-o', 'table'], { tty, env: { SVC_TOKEN: sb.token('demo') } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^name:\s+demo$/m);
      expect(r.stdout).toMatch(/^admin:\s+yes$/m);
      expect(r.stdout).toMatch(new RegExp(`^instance:\\s+${sb.instanceUrl.replace(/\./g, '\\.')}$`, 'm'));
      expect(r.stdout).toMatch(/^permissions:\nPERMISSION\s+ACCESS$/m);
      expect(r.stdout).toMatch(/^accounts\s+read and write$/m);
    }
  });

  it('shows the reader with read-only permissions', async () => {
    const env = { SVC_URL: sb.instanceUrl, SVC_TOKEN: sb.token('reader') };
    const info = JSON.parse((await svc(['whoami'], { env })).stdout) as { admin: boolean; permissions: Record<string, boolean> };
    expect(info.admin).toBe(false);
    expect(Object.keys(info.permissions).length).toBeGreaterThan(0);
    expect(Object.values(info.permissions).every((w) => !w)).toBe(true);
    const table = await svc(['whoami', '-o', 'table'], { env });
    expect(table.stdout).toMatch(/^admin:\s+no$/m);
    expect(table.stdout).toMatch(/^accounts\s+read$/m);
    expect(table.stdout).not.toContain('read and write');
  });

  it('picks the instance with --profile or SVC_PROFILE over the current profile', async () => {
    expect((await svc(['profile', 'add', 'dead', '--url', 'http://127.0.0.1:9/demo'])).code).toBe(0);
    expect((await svc(['profile', 'add', 'sb', '--url', sb.instanceUrl])).code).toBe(0);
    const env = { SVC_TOKEN: sb.token('demo') };
    const byFlag = await svc(['--profile', 'sb', 'whoami'], { env });
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(JSON.parse(byFlag.stdout)).toMatchObject({ name: 'demo' });
    const byEnv = await svc(['whoami'], { env: { ...env, SVC_PROFILE: 'sb' } });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    const unknown = await svc(['--profile', 'sbb', 'whoami'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no profile 'sbb'; did you mean 'sb'?");
  });

  it('exits 4 for an invalid token without showing it', async () => {
    const bad = 'f'.repeat(40);
    const r = await svc(['whoami'], { env: { SVC_URL: sb.instanceUrl, SVC_TOKEN: bad } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `svc: the token from SVC_TOKEN is not valid for ${sb.instanceUrl} (expired, revoked, or its user or application deactivated): set SVC_TOKEN to a valid token, or unset it and run 'svc login --url ${sb.instanceUrl}'\n`,
    );
    expect(r.stderr).not.toContain(bad);
  });

  it('exits 4 once the application the token was issued for is deactivated', async () => {
    const token = sb.token('demo', 'reporting');
    const env = { SVC_URL: sb.instanceUrl, SVC_TOKEN: token };
    expect((await svc(['whoami'], { env })).code).toBe(0);
    const app = sb.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'reporting');
    const update = sb.sandbox.db.prepare(`UPDATE ${table('demo', 'applications')} SET activity = ? WHERE "ID" = ?`);
    update.run(1, app?.id);
    try {
      const r = await svc(['whoami'], { env });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('is not valid');
      expect((await svc(['auth', 'status'], { env })).code).toBe(4);
    } finally {
      update.run(0, app?.id);
    }
  });
});

describe('svc auth status', () => {
  it('reports --token-file as the flag source', async () => {
    const file = tokenFile(sb.token('demo'));
    expect(await status(['--url', sb.instanceUrl, '--token-file', file])).toEqual({
      profile: null,
      instanceUrl: sb.instanceUrl,
      source: 'flag',
      tokenFile: file,
      valid: true,
      user: null,
      expires: null,
      credential: 'token',
    });
  });

  it('reports SVC_TOKEN as env and SVC_TOKEN_FILE as token file', async () => {
    const env = { SVC_URL: sb.instanceUrl };
    expect(await status([], { ...env, SVC_TOKEN: sb.token('demo') })).toMatchObject({ source: 'env', valid: true });
    const file = tokenFile(sb.token('demo'));
    expect(await status([], { ...env, SVC_TOKEN_FILE: file })).toMatchObject({ source: 'token file', tokenFile: file });
  });

  it('shows the profile, source and validity as details on a terminal', async () => {
    await svc(['profile', 'add', 'sb', '--url', sb.instanceUrl]);
    for (const tty of [true, false]) {
      const r = await svc(['auth', 'status', '-o', 'table'], { tty, env: { SVC_TOKEN: sb.token('demo') } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^profile:\s+sb$/m);
      expect(r.stdout).toMatch(/^token from:\s+SVC_TOKEN$/m);
      expect(r.stdout).toMatch(/^token:\s+valid$/m);
      expect(r.stdout).toMatch(/^expires:\s+unknown$/m);
      expect(r.stdout).not.toContain(sb.token('demo'));
    }
  });

  it('reports a token in the keychain, with the user and expiry of the login', async (ctx) => {
    if (!hasKeychain) ctx.skip(NO_KEYCHAIN);
    const profiles = await openProfiles(configDir);
    const expires = Math.floor(Date.now() / 1000) + 86_400;
    profiles.save({ name: 'sb', url: sb.instanceUrl, user: 'demo', tokenExpires: expires });
    profiles.use('sb');
    await keychain.set(accountName('profile:sb', 'token'), sb.token('demo'));
    expect(await status([])).toEqual({ profile: 'sb', instanceUrl: sb.instanceUrl, source: 'keychain', valid: true, user: 'demo', expires, credential: 'token' });
    const table = await svc(['auth', 'status'], { tty: true });
    expect(table.stdout).toMatch(/^token from:\s+the keychain$/m);
    expect(table.stdout).toMatch(new RegExp(`^expires:\\s+${new Date(expires * 1000).toISOString().slice(0, 19)}Z$`, 'm'));
    await keychain.delete(accountName('profile:sb', 'token'));
  });

  it('exits 4 for an invalid token, naming its source and the fix', async () => {
    const file = tokenFile('0'.repeat(40));
    const r = await svc(['auth', 'status', '--url', sb.instanceUrl, '--token-file', file]);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^svc: the token from --token-file ${file} is not valid for .*: put a valid token in ${file}`));
    expect(r.stderr).not.toContain('0'.repeat(40));
  });

  it("exits 4 when not signed in, saying to run 'svc login'", async () => {
    await svc(['profile', 'add', 'sb', '--url', sb.instanceUrl]);
    const r = await svc(['auth', 'status']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: not signed in to sb.*: run 'svc login --profile sb', or set SVC_TOKEN or SVC_TOKEN_FILE\n$/);
  });

  it('needs an instance: exit 2 without a profile or URL', async () => {
    const r = await svc(['auth', 'status'], { env: { SVC_TOKEN: sb.token('demo') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("svc profile add NAME --url URL");
  });
});

describe('svc auth token', () => {
  it('prints exactly the token and a newline', async () => {
    const token = sb.token('demo');
    for (const tty of [true, false]) {
      const r = await svc(['auth', 'token'], { tty, env: { SVC_URL: sb.instanceUrl, SVC_TOKEN: token } });
      expect(r).toEqual({ code: 0, stdout: `${token}\n`, stderr: '' });
    }
    const file = tokenFile(token);
    expect((await svc(['--url', sb.instanceUrl, '--token-file', file, 'auth', 'token'])).stdout).toBe(`${token}\n`);
  });

  it('exits 4 when there is no token', async () => {
    const r = await svc(['auth', 'token'], { env: { SVC_URL: sb.instanceUrl } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("run 'svc login --url");
  });
});

/**
 * `svc profile add|list|use|show|remove`, in-process, each test with its own
 * config dir and a keychain under a test service of its own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeychainStore } from '../../src/auth/keychain.js';
import { accountName, type CredentialStore } from '../../src/auth/store.js';
import { PLAIN_FILE_NAME } from '../../src/auth/plain-file.js';
import { openProfiles } from '../../src/config/profiles.js';
import { svc as run, type CliRun } from '../helpers/cli.js';
import { keychainAvailable, NO_KEYCHAIN } from '../helpers/keychain.js';

const URL_A = 'https://erp.example.com/acme';
const URL_B = 'http://127.0.0.1:8642/demo';

let configDir: string;
let keychain: CredentialStore;

function svc(argv: string[], opts: { tty?: boolean; env?: Record<string, string> } = {}): Promise<CliRun> {
  return run(argv, { ...opts, env: { NO_COLOR: '1', ...opts.env }, configDir, keychain: () => keychain });
}

interface ListRow {
  name: string;
  url: string;
  current: boolean;
  identifier: string;
}

async function list(): Promise<ListRow[]> {
  const r = await svc(['profile', 'list', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ListRow[];
}

let hasKeychain = false;
beforeAll(async () => {
  hasKeychain = await keychainAvailable();
});

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-profile-test-'));
  keychain = createKeychainStore({ service: `svc-test-${randomBytes(4).toString('hex')}` });
});

describe('svc profile add', () => {
  it('adds a profile, makes the first one current, and keeps the URL without a trailing slash', async () => {
    const r = await svc(['profile', 'add', 'acme', '--url', `${URL_A}/`]);
    expect(r).toEqual({ code: 0, stdout: '', stderr: `added profile 'acme' (${URL_A}); it is the current profile\n` });
    const second = await svc(['profile', 'add', 'local', '--url', URL_B]);
    expect(second.stderr).toBe(`added profile 'local' (${URL_B}); use it with --profile local or 'svc profile use local'\n`);
    const rows = await list();
    expect(rows.map((p) => [p.name, p.url, p.current])).toEqual([
      ['acme', URL_A, true],
      ['local', URL_B, false],
    ]);
    expect(rows[0]?.identifier).toMatch(/^svc-/);
  });

  it('updates on re-add, keeps the identifier for the same URL, and --use makes it current', async () => {
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    await svc(['profile', 'add', 'local', '--url', URL_B]);
    const before = (await list()).find((p) => p.name === 'local');
    const ca = join(configDir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    const r = await svc(['profile', 'add', 'local', '--ca-file', ca, '--use']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`updated profile 'local' (${URL_B}); it is the current profile\n`);
    const after = (await list()).find((p) => p.name === 'local');
    expect(after).toMatchObject({ url: URL_B, current: true, identifier: before?.identifier, caFile: ca });
  });

  it('drops the secrets of the old URL when the URL changes, so a token never goes to another instance', async () => {
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    const plain = join(configDir, PLAIN_FILE_NAME);
    writeFileSync(plain, JSON.stringify({ 'profile:acme/token': 'x'.repeat(40), 'profile:other/token': 'y'.repeat(40) }), { mode: 0o600 });
    const r = await svc(['profile', 'add', 'acme', '--url', 'https://erp.example.org/acme']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("sign in again with 'svc login --profile acme'");
    expect(JSON.parse(readFileSync(plain, 'utf8'))).toEqual({ 'profile:other/token': 'y'.repeat(40) });
  });

  it('refuses plain http:// to a remote host, a bad name, a missing URL or CA file, with exit 2', async () => {
    const http = await svc(['profile', 'add', 'acme', '--url', 'http://erp.example.com/acme']);
    expect(http.code).toBe(2);
    expect(http.stdout).toBe('');
    expect(http.stderr).toMatch(/^svc: refusing plain http:\/\/ for erp\.example\.com: .*use https:\/\/erp\.example\.com\/acme\n$/);
    expect((await svc(['profile', 'add', 'no/slash', '--url', URL_A])).stderr).toBe(
      "svc: invalid profile name 'no/slash': '/' is not allowed in it; a profile name is 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit\n",
    );
    const noUrl = await svc(['profile', 'add', 'acme']);
    expect(noUrl).toEqual({ code: 2, stdout: '', stderr: "svc: no URL for profile 'acme'; run 'svc profile add acme --url https://erp.example.com/acme'\n" });
    const noCa = await svc(['profile', 'add', 'acme', '--url', URL_A, '--ca-file', join(configDir, 'missing.pem')]);
    expect(noCa.code).toBe(2);
    expect(noCa.stderr).toContain('cannot read CA file');
    expect(await list()).toEqual([]);
  });
});

describe('svc profile list', () => {
  it('marks the current profile in a table on a terminal and off one', async () => {
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    await svc(['profile', 'add', 'local', '--url', URL_B]);
    for (const tty of [true, false]) {
      const r = await svc(['profile', 'list', '-o', 'table'], { tty });
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')).toEqual([
        expect.stringMatching(/^CURRENT\s+NAME\s+URL\s+USER$/),
        expect.stringMatching(new RegExp(`^\\*\\s+acme\\s+${URL_A}$`)),
        expect.stringMatching(new RegExp(`^\\s+local\\s+${URL_B.replace(/\./g, '\\.')}$`)),
        '',
      ]);
    }
    const piped = await svc(['profile', 'list']);
    expect((JSON.parse(piped.stdout) as ListRow[]).map((p) => p.name)).toEqual(['acme', 'local']);
  });

  it('says how to add one when there are none (on a terminal)', async () => {
    const r = await svc(['profile', 'list'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("svc profile add NAME --url URL");
    expect(await list()).toEqual([]);
  });
});

describe('svc profile use', () => {
  it('switches the current profile, and suggests a name for a typo', async () => {
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    await svc(['profile', 'add', 'local', '--url', URL_B]);
    expect(await svc(['profile', 'use', 'local'])).toEqual({ code: 0, stdout: '', stderr: `now using profile 'local' (${URL_B})\n` });
    expect((await list()).find((p) => p.current)?.name).toBe('local');
    const typo = await svc(['profile', 'use', 'lcoal']);
    expect(typo).toEqual({ code: 2, stdout: '', stderr: "svc: no profile 'lcoal'; did you mean 'local'? (see 'svc profile list')\n" });
  });
});

describe('svc profile show', () => {
  it('shows the current profile as details or data, never a token', async () => {
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    const table = await svc(['profile', 'show'], { tty: true });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^name:\s+acme$/m);
    expect(table.stdout).toMatch(new RegExp(`^url:\\s+${URL_A}$`, 'm'));
    expect(table.stdout).toMatch(/^current:\s+yes$/m);
    expect(table.stdout).toMatch(/^config file:\s+.*config\.json$/m);
    const data = JSON.parse((await svc(['profile', 'show', 'acme'])).stdout) as Record<string, unknown>;
    expect(data).toMatchObject({ name: 'acme', url: URL_A, current: true, insecureStorage: false, caFile: null, configFile: join(configDir, 'config.json') });
    expect(data.identifier).toMatch(/^svc-/);
    expect(typeof data.tokenStored === 'boolean' || data.tokenStored === null).toBe(true);
  });

  it('picks the profile by name, --profile or SVC_PROFILE, and fails with a did-you-mean', async () => {
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    await svc(['profile', 'add', 'local', '--url', URL_B]);
    const name = async (argv: string[], env: Record<string, string> = {}): Promise<unknown> => (JSON.parse((await svc(argv, { env })).stdout) as { name: string }).name;
    expect(await name(['profile', 'show', 'local'])).toBe('local');
    expect(await name(['--profile', 'local', 'profile', 'show'])).toBe('local');
    expect(await name(['profile', 'show'], { SVC_PROFILE: 'local' })).toBe('local');
    expect(await svc(['profile', 'show', 'acm'])).toEqual({ code: 2, stdout: '', stderr: "svc: no profile 'acm'; did you mean 'acme'? (see 'svc profile list')\n" });
    const none = await run(['profile', 'show'], { keychain: () => keychain });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no profile chosen');
  });

  it('tells whether a token is stored in the keychain', async (ctx) => {
    if (!hasKeychain) ctx.skip(NO_KEYCHAIN);
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    expect(JSON.parse((await svc(['profile', 'show'])).stdout)).toMatchObject({ tokenStored: false });
    const token = randomBytes(20).toString('hex');
    await keychain.set(accountName('profile:acme', 'token'), token);
    // Not the profile's until a login there says so (keychainUrl): another instance's token is never counted.
    expect(JSON.parse((await svc(['profile', 'show'])).stdout)).toMatchObject({ tokenStored: false });
    const profiles = await openProfiles(configDir);
    profiles.save({ ...profiles.get('acme')!, keychainUrl: URL_A });
    const r = await svc(['profile', 'show'], { tty: true });
    expect(r.stdout).toMatch(/^token:\s+stored in the keychain$/m);
    expect(r.stdout + r.stderr).not.toContain(token);
    expect(JSON.parse((await svc(['profile', 'show'])).stdout)).toMatchObject({ tokenStored: true, tokenStore: 'keychain' });
    await keychain.delete(accountName('profile:acme', 'token'));
  });
});

describe('svc profile remove', () => {
  it('removes the profile and its secrets from the plain file, and clears current', async () => {
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    await svc(['profile', 'add', 'local', '--url', URL_B]);
    const plain = join(configDir, PLAIN_FILE_NAME);
    writeFileSync(plain, JSON.stringify({ 'profile:acme/token': 'x'.repeat(40), 'profile:local/token': 'y'.repeat(40) }), { mode: 0o600 });
    const r = await svc(['profile', 'remove', 'acme']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe("removed profile 'acme'; no profile is current now: choose one with 'svc profile use NAME'");
    expect((await list()).map((p) => [p.name, p.current])).toEqual([['local', false]]);
    expect(JSON.parse(readFileSync(plain, 'utf8'))).toEqual({ 'profile:local/token': 'y'.repeat(40) });
    const again = await svc(['profile', 'remove', 'acme']);
    expect(again).toEqual({ code: 2, stdout: '', stderr: "svc: no profile 'acme' (see 'svc profile list')\n" });
    expect((await svc(['profile', 'remove', 'locl'])).stderr).toBe("svc: no profile 'locl'; did you mean 'local'? (see 'svc profile list')\n");
  });

  it('deletes its token and application secret from the keychain', async (ctx) => {
    if (!hasKeychain) ctx.skip(NO_KEYCHAIN);
    await svc(['profile', 'add', 'acme', '--url', URL_A]);
    await keychain.set(accountName('profile:acme', 'token'), 'a'.repeat(40));
    await keychain.set(accountName('profile:acme', 'appsecret'), 'b'.repeat(32));
    const r = await svc(['profile', 'remove', 'acme']);
    expect(r).toEqual({ code: 0, stdout: '', stderr: "removed profile 'acme'; no profile is current now: choose one with 'svc profile use NAME'\n" });
    expect(await keychain.get(accountName('profile:acme', 'token'))).toBeUndefined();
    expect(await keychain.get(accountName('profile:acme', 'appsecret'))).toBeUndefined();
  });
});

/**
 * The sandbox's own profile: what `svc sandbox start` and `reset` save, in
 * process, with a temporary config dir and a test keychain: `sandbox` for the
 * default data dir, `sandbox-<dir>-<hash>` for another. (The spawned start is
 * covered in sandbox.test.ts, starts against real sandboxes in
 * test/commands/sandbox/start.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeychainStore } from '../../src/auth/keychain.js';
import { accountName, type CredentialStore } from '../../src/auth/store.js';
import { profileHint, registerSandboxProfile, sandboxProfileName } from '../../src/commands/sandbox/profile.js';
import { usageHint } from '../../src/commands/sandbox/info.js';
import { openProfiles } from '../../src/config/profiles.js';
import { testDeps } from '../helpers/cli.js';
import { keychainAvailable, NO_KEYCHAIN } from '../helpers/keychain.js';

const info = { instanceUrl: 'http://127.0.0.1:8642/demo', user: 'demo', password: 'pw-not-shown', appsecret: 'a'.repeat(32), clientId: 'svc-cli', clientSecret: 'c'.repeat(32) };

let configDir: string;
let keychain: CredentialStore;
let hasKeychain = false;

/** The default data dir of these tests' deps (SVC_SANDBOX_DIR): its sandbox's profile is `sandbox`. */
const DEFAULT_DIR = '/tmp/svc-default-sandbox';

function register(extra: Partial<typeof info> & { caFile?: string } = {}, dataDir = DEFAULT_DIR): Promise<{ ok: boolean; name?: string; warnings: string[] }> {
  const deps = testDeps({ configDir, keychain: () => keychain, env: { SVC_SANDBOX_DIR: DEFAULT_DIR } });
  const warnings: string[] = [];
  return registerSandboxProfile(deps, dataDir, { ...info, ...extra }, (l: string) => warnings.push(l)).then((name) => ({ ok: name !== undefined, ...(name ? { name } : {}), warnings }));
}

beforeAll(async () => {
  hasKeychain = await keychainAvailable();
});

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-sandbox-profile-'));
  keychain = createKeychainStore({ service: `svc-test-${randomBytes(4).toString('hex')}` });
});

describe('the sandbox profile', () => {
  it('is saved with the instance URL and becomes current when none is', async () => {
    expect(await register()).toEqual({ ok: true, name: 'sandbox', warnings: [] });
    const profiles = await openProfiles(configDir);
    expect(profiles.get('sandbox')).toMatchObject({ url: info.instanceUrl });
    expect(profiles.current()).toBe('sandbox');
  });

  it('follows the sandbox to a new URL and CA file, and leaves another current profile current', async () => {
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'acme', url: 'https://erp.example.com/acme' });
    profiles.use('acme');
    expect((await register({ instanceUrl: 'https://127.0.0.1:9000/demo', caFile: '/tmp/ca.pem' })).warnings).toEqual([]);
    expect((await openProfiles(configDir)).get('sandbox')).toMatchObject({ url: 'https://127.0.0.1:9000/demo', caFile: '/tmp/ca.pem' });
    expect((await register()).warnings).toEqual([`profile 'sandbox' now points at ${info.instanceUrl} (was https://127.0.0.1:9000/demo)`]);
    const after = await openProfiles(configDir);
    expect(after.get('sandbox')?.url).toBe(info.instanceUrl);
    expect(after.get('sandbox')?.caFile).toBeUndefined();
    expect(after.current()).toBe('acme');
  });

  it("leaves a user's own 'sandbox' profile for a remote instance alone", async () => {
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sandbox', url: 'https://erp.example.com/sandbox' });
    const r = await register();
    expect(r.ok).toBe(false);
    expect(r.warnings).toEqual([
      "svc: warning: profile 'sandbox' points at https://erp.example.com/sandbox, so it was left unchanged; remove it with 'svc profile remove sandbox' to let the sandbox register itself",
    ]);
    expect((await openProfiles(configDir)).get('sandbox')?.url).toBe('https://erp.example.com/sandbox');
  });

  it('keeps the svc-cli application and client secrets in the keychain, the client id in the profile, no secret in the config', async (ctx) => {
    if (!hasKeychain) ctx.skip(NO_KEYCHAIN);
    await register();
    expect(await keychain.get(accountName('profile:sandbox', 'appsecret'))).toBe(info.appsecret);
    expect(await keychain.get(accountName('profile:sandbox', 'clientsecret'))).toBe(info.clientSecret);
    expect((await openProfiles(configDir)).get('sandbox')?.clientId).toBe('svc-cli');
    const { readFileSync } = await import('node:fs');
    const config = readFileSync(join(configDir, 'config.json'), 'utf8');
    expect(config).not.toContain(info.appsecret);
    expect(config).not.toContain(info.clientSecret);
    await keychain.delete(accountName('profile:sandbox', 'appsecret'));
    await keychain.delete(accountName('profile:sandbox', 'clientsecret'));
  });

  it("is 'sandbox' for the default data dir, and one of its own for any other", () => {
    const env = { SVC_SANDBOX_DIR: '/srv/sandbox' };
    expect(sandboxProfileName('/srv/sandbox', env)).toBe('sandbox');
    expect(sandboxProfileName('/home/dana/.local/share/svc/sandbox', { HOME: '/home/dana' })).toBe('sandbox');
    expect(sandboxProfileName('/home/dana/.local/share/svc/sandbox', env)).toMatch(/^sandbox-svc-[0-9a-f]{4}$/);
    expect(sandboxProfileName('/work/acme/data', env)).toMatch(/^sandbox-data-[0-9a-f]{4}$/);
    // Two folders of one name in two places get two profiles.
    expect(sandboxProfileName('/work/acme/data', env)).not.toBe(sandboxProfileName('/work/beta/data', env));
    expect(sandboxProfileName('/work/acme/data', env)).toBe(sandboxProfileName('/work/acme/data', env));
    // Whatever the folder is called, the name is a valid profile name.
    for (const dir of ['/', '/tmp/ü ß ✓', `/tmp/${'x'.repeat(300)}`, '/tmp/..hidden', '/tmp/-a-', '/tmp/__proto__']) {
      expect(sandboxProfileName(dir, env), dir).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/);
    }
  });

  it('gives a sandbox of another data dir its own profile, leaving the first one as it was', async () => {
    await register();
    const other = await register({ instanceUrl: 'http://127.0.0.1:9001/demo' }, '/tmp/elsewhere/data');
    expect(other).toEqual({ ok: true, name: sandboxProfileName('/tmp/elsewhere/data', { SVC_SANDBOX_DIR: DEFAULT_DIR }), warnings: [] });
    const profiles = await openProfiles(configDir);
    expect(profiles.get('sandbox')?.url).toBe(info.instanceUrl);
    expect(profiles.get(other.name ?? '')?.url).toBe('http://127.0.0.1:9001/demo');
    expect(profiles.current()).toBe('sandbox');
  });

  it('keeps the token of a profile that follows its own sandbox to a new URL (the same data dir, the same tenant), and says where it points', async () => {
    await register();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sandbox', url: info.instanceUrl, user: 'demo', insecureStorage: true, tokenExpires: 2_000_000_000 });
    const plain = join(configDir, 'credentials.insecure.json');
    writeFileSync(plain, JSON.stringify({ 'profile:sandbox/token': 't'.repeat(40), 'profile:other/token': 'o'.repeat(40) }), { mode: 0o600 });
    // The same URL spelt otherwise is no move.
    expect((await register({ instanceUrl: `${info.instanceUrl}/` })).warnings).toEqual([]);
    const moved = await register({ instanceUrl: 'http://127.0.0.1:9002/demo' });
    expect(moved.warnings).toEqual([`profile 'sandbox' now points at http://127.0.0.1:9002/demo (was ${info.instanceUrl}/)`]);
    expect(JSON.parse(readFileSync(plain, 'utf8'))).toEqual({ 'profile:sandbox/token': 't'.repeat(40), 'profile:other/token': 'o'.repeat(40) });
    const after = (await openProfiles(configDir)).get('sandbox');
    expect(after).toMatchObject({ url: 'http://127.0.0.1:9002/demo', user: 'demo', tokenExpires: 2_000_000_000, sandboxDir: DEFAULT_DIR });
  });

  it('drops the token of a profile that another data dir\'s sandbox (or none) registered when it moves, and says so in one line', async () => {
    const profiles = await openProfiles(configDir);
    // A profile of that name from before svc recorded the data dir, or a user's own for a local instance.
    profiles.save({ name: 'sandbox', url: info.instanceUrl, user: 'demo', insecureStorage: true, tokenExpires: 2_000_000_000 });
    const plain = join(configDir, 'credentials.insecure.json');
    writeFileSync(plain, JSON.stringify({ 'profile:sandbox/token': 't'.repeat(40), 'profile:other/token': 'o'.repeat(40) }), { mode: 0o600 });
    const moved = await register({ instanceUrl: 'http://127.0.0.1:9002/demo' });
    expect(moved.warnings).toEqual([`profile 'sandbox' now points at http://127.0.0.1:9002/demo (was ${info.instanceUrl}); the token it kept was for the old one and was removed`]);
    expect(JSON.parse(readFileSync(plain, 'utf8'))).toEqual({ 'profile:other/token': 'o'.repeat(40) });
    const after = (await openProfiles(configDir)).get('sandbox');
    expect(after).toMatchObject({ url: 'http://127.0.0.1:9002/demo', sandboxDir: DEFAULT_DIR });
    expect(after?.user).toBeUndefined();
    expect(after?.tokenExpires).toBeUndefined();
  });

  it('drops the token when the tenant was seeded afresh (another application secret), and says so', async (ctx) => {
    if (!hasKeychain) ctx.skip(NO_KEYCHAIN);
    await register();
    await keychain.set(accountName('profile:sandbox', 'token'), 't'.repeat(40));
    expect((await register()).warnings).toEqual([]);
    expect(await keychain.get(accountName('profile:sandbox', 'token'))).toBe('t'.repeat(40));
    const reseeded = await register({ appsecret: 'b'.repeat(32) });
    expect(reseeded.warnings).toEqual(["the sandbox of profile 'sandbox' has a new tenant (new credentials); the token it kept was for the old one and was removed"]);
    expect(await keychain.get(accountName('profile:sandbox', 'token'))).toBeUndefined();
    expect(await keychain.get(accountName('profile:sandbox', 'appsecret'))).toBe('b'.repeat(32));
    await keychain.delete(accountName('profile:sandbox', 'appsecret'));
    await keychain.delete(accountName('profile:sandbox', 'clientsecret'));
  });

  it('is named in the hint after start, with environment variables as the fallback', () => {
    expect(usageHint(info, profileHint())).toBe(
      "\nprofile 'sandbox' points at it: svc login --profile sandbox --user demo\n  or sign in with a browser: svc login --web --profile sandbox\n",
    );
    expect(usageHint(info, undefined)).toBe(`\nto point svc at it, set:\n  export SVC_URL=${info.instanceUrl}\n`);
  });
});

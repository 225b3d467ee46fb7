/**
 * The sandbox's own profile: what `svc sandbox start` and `reset` save, in
 * process, with a temporary config dir and a test keychain. (The spawned
 * start is covered in sandbox.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeychainStore } from '../../src/auth/keychain.js';
import { accountName, type CredentialStore } from '../../src/auth/store.js';
import { profileHint, registerSandboxProfile } from '../../src/commands/sandbox/profile.js';
import { usageHint } from '../../src/commands/sandbox/info.js';
import { openProfiles } from '../../src/config/profiles.js';
import { testDeps } from '../helpers/cli.js';
import { keychainAvailable, NO_KEYCHAIN } from '../helpers/keychain.js';

const info = { instanceUrl: 'http://127.0.0.1:8642/demo', user: 'demo', password: 'pw-not-shown', appsecret: 'a'.repeat(32), clientId: 'svc-cli', clientSecret: 'c'.repeat(32) };

let configDir: string;
let keychain: CredentialStore;
let hasKeychain = false;

function register(extra: Partial<typeof info> & { caFile?: string } = {}): Promise<{ ok: boolean; warnings: string[] }> {
  const deps = testDeps({ configDir, keychain: () => keychain });
  const warnings: string[] = [];
  return registerSandboxProfile(deps, { ...info, ...extra }, (l) => warnings.push(l)).then((ok) => ({ ok, warnings }));
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
    expect(await register()).toEqual({ ok: true, warnings: [] });
    const profiles = await openProfiles(configDir);
    expect(profiles.get('sandbox')).toMatchObject({ url: info.instanceUrl });
    expect(profiles.current()).toBe('sandbox');
  });

  it('follows the sandbox to a new URL and CA file, and leaves another current profile current', async () => {
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'acme', url: 'https://erp.example.com/acme' });
    profiles.use('acme');
    await register({ instanceUrl: 'https://127.0.0.1:9000/demo', caFile: '/tmp/ca.pem' });
    expect((await openProfiles(configDir)).get('sandbox')).toMatchObject({ url: 'https://127.0.0.1:9000/demo', caFile: '/tmp/ca.pem' });
    await register();
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

  it('is named in the hint after start, with environment variables as the fallback', () => {
    expect(usageHint(info, profileHint())).toBe(
      "\nprofile 'sandbox' points at it: svc login --profile sandbox --user demo\n  or sign in with a browser: svc login --web --profile sandbox\n",
    );
    expect(usageHint(info, undefined)).toBe(`\nto point svc at it, set:\n  export SVC_URL=${info.instanceUrl}\n`);
  });
});

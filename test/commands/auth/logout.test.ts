/** `svc logout`: no options; against a real sandbox, what it says and what it leaves behind. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../../src/auth/plain-file.js';
import { logoutSpec } from '../../../src/commands/auth/logout/command.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { svc, tempConfigDir, testKeychain } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

describe('svc logout', () => {
  const sandbox = useTestSandbox({ per: 'test' });

  it('takes no flags of its own', () => {
    expect(logoutSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it('invalidates a token from SVC_TOKEN at the service and says where it still is', async () => {
    const token = sandbox.token('demo');
    const r = await svc(['logout'], { keychain: testKeychain(), env: { SVC_URL: sandbox.instanceUrl, SVC_TOKEN: token } });
    expect(r).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `signed out of ${sandbox.instanceUrl}: the token was invalidated; it came from SVC_TOKEN, remove it there\n`,
    });
    expect((await sandbox.call('HEAD', 'auth/v1/', { token })).status).toBe(401);
  });

  it('forgets a token stored in the plain file, and the expiry in the profile', async () => {
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl, insecureStorage: true, tokenExpires: 2_000_000_000 });
    profiles.use('sb');
    const appsecret = sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    const keychain = testKeychain();
    const login = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      configDir,
      keychain,
      env: { SVC_APPSECRET: appsecret },
      stdin: [sandbox.user('demo').password],
    });
    expect(login.code, login.stderr).toBe(0);
    const plain = join(configDir, PLAIN_FILE_NAME);
    expect(readFileSync(plain, 'utf8')).toMatch(/profile:sb\/token/);
    const r = await svc(['logout'], { configDir, keychain });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\nsigned out of sb: the token was invalidated\n$/);
    expect(existsSync(plain) ? readFileSync(plain, 'utf8') : '').not.toMatch(/profile:sb\/token/);
    expect((await openProfiles(configDir)).get('sb')?.tokenExpires).toBeUndefined();
  });

  it('is not an error when there is no token', async () => {
    const r = await svc(['logout'], { keychain: testKeychain(), env: { SVC_URL: sandbox.instanceUrl } });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `not signed in to ${sandbox.instanceUrl}; nothing to do\n` });
  });

  it('forgets a token the profile does not read (a login stopped before it saved its choice of store): signed out leaves no stored token', async () => {
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl });
    profiles.use('sb');
    const plain = join(configDir, PLAIN_FILE_NAME);
    writeFileSync(plain, JSON.stringify({ 'profile:sb/token': 'tok_left', 'profile:other/token': 'tok_other' }), { mode: 0o600 });
    const keychain = testKeychain();
    await keychain().set('profile:sb/token', 'tok_left_in_keychain');
    const r = await svc(['logout'], { configDir, keychain });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      'signed out of sb: a token the profile did not use (left by a stopped login) was forgotten here from the plain file and the keychain; the service was not told, so it stays valid there until it expires\n',
    );
    expect(JSON.parse(readFileSync(plain, 'utf8'))).toEqual({ 'profile:other/token': 'tok_other' });
    expect(await keychain().get('profile:sb/token')).toBeUndefined();
    const again = await svc(['logout'], { configDir, keychain });
    expect(again.stderr).toBe('not signed in to sb; nothing to do\n');
  });

  it('shows a profile name from config.json with its control characters replaced', async () => {
    const configDir = tempConfigDir();
    const name = 'a\u001b[2Jb';
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ current: name, profiles: { [name]: { url: sandbox.instanceUrl, identifier: 'i' } } }));
    const r = await svc(['logout'], { configDir, keychain: testKeychain() });
    expect(r).toMatchObject({ code: 0, stderr: 'not signed in to a?[2Jb; nothing to do\n' });
  });
});

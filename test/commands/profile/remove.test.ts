/** `svc profile remove NAME`: the name → options; the profile and its stored secrets go. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAIN_FILE_NAME } from '../../../src/auth/plain-file.js';
import { profileRemoveSpec } from '../../../src/commands/profile/remove/command.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { svc, tempConfigDir, testKeychain } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

describe('svc profile remove', () => {
  const sandbox = useTestSandbox();

  it('takes the name', () => {
    expect(profileRemoveSpec.toOptions({ args: ['acme'], flags: {} })).toEqual({ name: 'acme' });
  });

  it('removes the current profile and the token a login kept in the plain file', async () => {
    const configDir = tempConfigDir();
    const keychain = testKeychain();
    await svc(['profile', 'add', 'sb', '--url', sandbox.instanceUrl], { configDir });
    const appsecret = sandbox.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
    const login = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      configDir,
      keychain,
      env: { SVC_APPSECRET: appsecret },
      stdin: [sandbox.user('demo').password],
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await svc(['profile', 'remove', 'sb'], { configDir, keychain });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^removed profile 'sb'; no profile is current now: choose one with 'svc profile use NAME'\n/);
    expect((await openProfiles(configDir)).get('sb')).toBeUndefined();
    const plain = join(configDir, PLAIN_FILE_NAME);
    expect(existsSync(plain) ? readFileSync(plain, 'utf8') : '').not.toContain('profile:sb/');
  });

  it('refuses an unknown name with a did-you-mean', async () => {
    const configDir = tempConfigDir();
    await svc(['profile', 'add', 'acme', '--url', 'https://erp.example.com/acme'], { configDir });
    expect(await svc(['profile', 'remove', 'acm'], { configDir })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "svc: no profile 'acm'; did you mean 'acme'? (see 'svc profile list')\n",
    });
  });
});

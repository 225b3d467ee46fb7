/** `svc profile use NAME`: the name → options; the current profile changes, and commands follow it to its instance. */
import { describe, expect, it } from 'vitest';
import { profileUseSpec } from '../../../src/commands/profile/use/command.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { svc, tempConfigDir } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

describe('svc profile use', () => {
  const sandbox = useTestSandbox();

  it('takes the name', () => {
    expect(profileUseSpec.toOptions({ args: ['acme'], flags: {} })).toEqual({ name: 'acme' });
  });

  it('makes the profile current; the next command talks to its instance', async () => {
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'acme', url: 'https://erp.example.com/acme' });
    profiles.save({ name: 'sb', url: sandbox.instanceUrl });
    profiles.use('acme');
    const r = await svc(['profile', 'use', 'sb'], { configDir });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `now using profile 'sb' (${sandbox.instanceUrl})\n` });
    const status = await svc(['auth', 'status', '-o', 'json'], { configDir, env: { SVC_TOKEN: sandbox.token('demo') } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'sb', instanceUrl: sandbox.instanceUrl, valid: true });
  });

  it('refuses an unknown name with a did-you-mean', async () => {
    const configDir = tempConfigDir();
    (await openProfiles(configDir)).save({ name: 'sandbox', url: sandbox.instanceUrl });
    expect(await svc(['profile', 'use', 'sandbx'], { configDir })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "svc: no profile 'sandbx'; did you mean 'sandbox'? (see 'svc profile list')\n",
    });
  });
});

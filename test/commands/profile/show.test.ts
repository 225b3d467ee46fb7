/** `svc profile show [NAME]`: the name → options; the chosen profile, never a token. */
import { describe, expect, it } from 'vitest';
import { profileShowSpec } from '../../../src/commands/profile/show/command.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { svc, tempConfigDir, testKeychain } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

describe('svc profile show', () => {
  const sandbox = useTestSandbox();

  it('takes an optional name', () => {
    expect(profileShowSpec.toOptions({ args: ['acme'], flags: {} })).toEqual({ name: 'acme' });
    expect(profileShowSpec.toOptions({ args: [undefined], flags: {} })).toEqual({});
  });

  it('shows the named profile, else --profile, else the current one', async () => {
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl, user: 'demo', tokenExpires: 1 });
    profiles.save({ name: 'acme', url: 'https://erp.example.com/acme' });
    profiles.use('acme');
    const show = async (...argv: string[]): Promise<{ name: string; current: boolean; tokenExpires: number | null; configFile: string }> => {
      const r = await svc(['profile', 'show', ...argv, '-o', 'json'], { configDir, keychain: testKeychain() });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { name: string; current: boolean; tokenExpires: number | null; configFile: string };
    };
    expect(await show()).toMatchObject({ name: 'acme', current: true, tokenExpires: null, configFile: profiles.path });
    expect(await show('--profile', 'sb')).toMatchObject({ name: 'sb', current: false, tokenExpires: 1 });
    expect(await show('sb', '--profile', 'acme')).toMatchObject({ name: 'sb' });
    const lines = await svc(['profile', 'show', 'sb'], { configDir, keychain: testKeychain(), tty: true, env: { NO_COLOR: '1' } });
    expect(lines.stdout).toMatch(/^token expires:\s+1970-01-01T00:00:01Z \(expired\)$/m);
  });

  it('says how to choose one when none is chosen', async () => {
    expect(await svc(['profile', 'show'])).toMatchObject({
      code: 2,
      stderr: "svc: no profile chosen: name one ('svc profile show NAME'), or add one with 'svc profile add NAME --url URL'\n",
    });
  });
});

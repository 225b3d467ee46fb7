/** `svc profile list`: no options; the profiles as rows, the current one marked. */
import { describe, expect, it } from 'vitest';
import { profileListSpec } from '../../../src/commands/profile/list/command.js';
import { openProfiles } from '../../../src/config/profiles.js';
import { svc, tempConfigDir } from '../../helpers/cli.js';
import { useTestSandbox } from '../../helpers/sandbox.js';

describe('svc profile list', () => {
  const sandbox = useTestSandbox();

  it('takes no flags of its own', () => {
    expect(profileListSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it('lists the profiles as data and as a table with * on the current one', async () => {
    const configDir = tempConfigDir();
    const profiles = await openProfiles(configDir);
    profiles.save({ name: 'sb', url: sandbox.instanceUrl, user: 'demo' });
    profiles.save({ name: 'acme', url: 'https://erp.example.com/acme' });
    profiles.use('sb');
    const data = await svc(['profile', 'list', '-o', 'json'], { configDir });
    expect(data.code, data.stderr).toBe(0);
    expect((JSON.parse(data.stdout) as { name: string; current: boolean }[]).map((p) => [p.name, p.current])).toEqual([
      ['acme', false],
      ['sb', true],
    ]);
    const table = await svc(['profile', 'list'], { configDir, tty: true, env: { NO_COLOR: '1' } });
    expect(table.stdout).toMatch(new RegExp(`^\\*\\s+sb\\s+${sandbox.instanceUrl.replace(/[.]/g, '\\.')}\\s+demo$`, 'm'));
  });

  it('says how to add one on a terminal when there are none; a pipe gets an empty list', async () => {
    const tty = await svc(['profile', 'list'], { tty: true });
    expect(tty.stderr).toBe("no profiles yet: add one with 'svc profile add NAME --url URL' (or run 'svc sandbox start')\n");
    expect(await svc(['profile', 'list'])).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
  });
});

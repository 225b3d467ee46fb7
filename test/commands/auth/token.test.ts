/** `svc auth token`: no options; the token and a newline, for piping. */
import { describe, expect, it } from 'vitest';
import { authTokenSpec } from '../../../src/commands/auth/token/command.js';
import { sandboxCli, testKeychain } from '../../helpers/cli.js';

describe('svc auth token', () => {
  const { sandbox, run } = sandboxCli();

  it('takes no flags of its own', () => {
    expect(authTokenSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it('prints the token svc would send, nothing else, and sends nothing', async () => {
    const r = await run(['auth', 'token'], { user: 'staff' });
    expect(r).toMatchObject({ code: 0, stdout: `${sandbox.token('staff')}\n`, stderr: '' });
    expect(sandbox.sandbox.hooks.requests).toEqual([]);
  });

  it('exits 4 when there is no token', async () => {
    const r = await run(['auth', 'token'], { keychain: testKeychain(), env: { SVC_TOKEN: undefined } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: not signed in to .+: run 'svc login --url .+', or set SVC_TOKEN or SVC_TOKEN_FILE\n$/);
  });
});

/** `svc config`: no options; `GET /config` of a real sandbox, as data and as lines. */
import { describe, expect, it } from 'vitest';
import { configSpec } from '../../../src/commands/general/config/command.js';
import { sandboxCli, testKeychain } from '../../helpers/cli.js';

describe('svc config', () => {
  const { sandbox, run } = sandboxCli({ record: true });

  it('takes no flags of its own', () => {
    expect(configSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it("prints the service's object unchanged as data, after one GET with the token", async () => {
    const r = await run(['config', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const [sent] = sandbox.sandbox.hooks.requests;
    expect(sandbox.sandbox.hooks.requests).toHaveLength(1);
    expect(sent).toMatchObject({ method: 'GET', url: '/demo/api/v1/config', headers: { authorization: `Bearer ${sandbox.token('demo')}` } });
    expect(JSON.parse(r.stdout)).toEqual((await sandbox.call('GET', 'api/v1/config', { token: sandbox.token('demo') })).json());
  });

  it('shows one member a line on a terminal', async () => {
    const r = await run(['config'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const data = (await sandbox.call('GET', 'api/v1/config', { token: sandbox.token('demo') })).json<Record<string, unknown>>();
    for (const key of Object.keys(data)) expect(r.stdout).toMatch(new RegExp(`^${key}:`, 'm'));
  });

  it('exits 4 without a token', async () => {
    const r = await run(['config'], { keychain: testKeychain(), env: { SVC_TOKEN: undefined } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: not signed in to .+: run 'svc login', or set SVC_TOKEN or SVC_TOKEN_FILE\n$/);
  });
});

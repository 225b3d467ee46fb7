/** `svc whoami`: no options; the session info of the token from a real sandbox, as data and on a terminal. */
import { describe, expect, it } from 'vitest';
import { whoamiSpec } from '../../../src/commands/auth/whoami/command.js';
import { sandboxCli } from '../../helpers/cli.js';
import { parseCsv } from '../../helpers/csv.js';

describe('svc whoami', () => {
  const { sandbox, run } = sandboxCli();

  it('takes no flags of its own', () => {
    expect(whoamiSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it("prints the service's session object unchanged as data", async () => {
    const r = await run(['whoami', '-o', 'json'], { user: 'reader' });
    expect(r.code, r.stderr).toBe(0);
    const served = (await sandbox.call('GET', 'auth/v1/', { token: sandbox.token('reader') })).json();
    expect(JSON.parse(r.stdout)).toEqual(served);
    expect(sandbox.sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`)).toContain('GET /demo/auth/v1/');
  });

  it('is also `svc auth whoami`, the same command (as login and logout are `svc auth login|logout`)', async () => {
    const top = await run(['whoami', '-o', 'json']);
    expect(top.code, top.stderr).toBe(0);
    expect(await run(['auth', 'whoami', '-o', 'json'])).toEqual(top);
    const help = await run(['auth', '--help']);
    const listed = [...help.stdout.matchAll(/^ {2}(\w+) /gm)].map((m) => m[1]);
    expect(listed).toEqual(['login', 'logout', 'whoami', 'status', 'token', 'help']);
  });

  it('shows the user and a table of permissions on a terminal', async () => {
    const r = await run(['whoami'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^name:\s+\S/m);
    expect(r.stdout).toMatch(new RegExp(`^instance:\\s+${sandbox.instanceUrl.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(r.stdout).toMatch(/^PERMISSION\s+ACCESS$/m);
  });

  it('prints the whole session as field,value rows with -o csv (the permissions one value among the others, as JSON)', async () => {
    const r = await run(['whoami', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const served = (await sandbox.call('GET', 'auth/v1/', { token: sandbox.token('demo') })).json() as Record<string, unknown>;
    const rows = parseCsv(r.stdout);
    expect(rows[0]).toEqual(['field', 'value']);
    expect(rows.slice(1).map(([field]) => field)).toEqual(Object.keys(served));
    const value = (field: string): string | undefined => rows.find(([f]) => f === field)?.[1];
    expect(value('email')).toBe(served.email);
    expect(JSON.parse(value('permissions') ?? '')).toEqual(served.permissions);
  });

  it('exits 4 naming the fix when the service refuses the token', async () => {
    const r = await run(['whoami'], { env: { SVC_TOKEN: '0'.repeat(40) } });
    expect(r).toMatchObject({
      code: 4,
      stdout: '',
      stderr: `svc: the token from SVC_TOKEN is not valid for ${sandbox.instanceUrl} (expired, revoked, or its user or application deactivated): set SVC_TOKEN to a valid token, or unset it and run 'svc login --url ${sandbox.instanceUrl}'\n`,
    });
  });
});

/** `svc auth status`: no options; which credential won and whether a real sandbox accepts it. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { authStatusSpec } from '../../../src/commands/auth/status/command.js';
import { sandboxCli, tempConfigDir, testKeychain } from '../../helpers/cli.js';

describe('svc auth status', () => {
  const { sandbox, run } = sandboxCli();

  it('takes no flags of its own', () => {
    expect(authStatusSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it('names the instance and the credential, checked with the service', async () => {
    const r = await run(['auth', 'status', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ profile: null, instanceUrl: sandbox.instanceUrl, source: 'env', valid: true, user: null, expires: null, credential: 'token' });
    expect(sandbox.sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['HEAD /demo/auth/v1/']);
  });

  it('says which file a token came from, in lines on a terminal', async () => {
    const file = join(tempConfigDir(), 'token');
    writeFileSync(file, `${sandbox.token('demo')}\n`, { mode: 0o600 });
    const r = await run(['auth', 'status', '--token-file', file], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^token from:\\s+--token-file ${file}$`, 'm'));
    expect(r.stdout).toMatch(/^profile:\s+none \(--url or SVC_URL\)$/m);
    expect(r.stdout).toMatch(/^expires:\s+unknown$/m);
  });

  it('exits 4 when the token is refused, and when there is none', async () => {
    const bad = await run(['auth', 'status'], { env: { SVC_TOKEN: 'f'.repeat(40) } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/^svc: the token from SVC_TOKEN is not valid for /);
    const none = await run(['auth', 'status'], { keychain: testKeychain(), env: { SVC_TOKEN: undefined } });
    expect(none.code).toBe(4);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(new RegExp(`^svc: not signed in to ${sandbox.instanceUrl.replace(/[.]/g, '\\.')}( \\(the keychain could not be read: .+\\))?: run 'svc login --url ${sandbox.instanceUrl.replace(/[.]/g, '\\.')}', or set SVC_TOKEN or SVC_TOKEN_FILE\\n$`));
  });
});

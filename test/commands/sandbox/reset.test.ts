/** `svc sandbox reset`: flags → options (pure); a stopped sandbox's data dir wiped and seeded again, in-process. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toSandboxResetOptions } from '../../../src/commands/sandbox/reset/options.js';
import { sandboxFiles } from '../../../src/commands/sandbox/state.js';
import { svc } from '../../helpers/cli.js';
import { freshDataDir } from './serving.js';

interface Info {
  instanceUrl?: string;
  user: string;
  password: string;
  appsecret: string;
  clientId: string;
  clientSecret: string;
}

describe('svc sandbox reset: flags → options', () => {
  it('takes --data-dir as given and --seed-accounts as a number', () => {
    expect(toSandboxResetOptions({})).toEqual({});
    expect(toSandboxResetOptions({ dataDir: 'd', seedAccounts: '3' })).toEqual({ dataDir: 'd', seedAccounts: 3 });
    expect(() => toSandboxResetOptions({ seedAccounts: 'many' })).toThrow("invalid number of accounts 'many'; give a whole number from 1 to 1000000");
  });
});

describe('svc sandbox reset: run', () => {
  it('seeds a stopped sandbox afresh and prints the new credentials, without a URL', async () => {
    const dataDir = freshDataDir();
    const reset = async (): Promise<Info> => {
      const r = await svc(['sandbox', 'reset', '--data-dir', dataDir, '--seed-accounts', '2', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`sandbox data in ${dataDir} wiped and seeded again; it is not running: start it with 'svc sandbox start --data-dir ${dataDir}'\n`);
      return JSON.parse(r.stdout) as Info;
    };
    const first = await reset();
    expect(Object.keys(first).sort()).toEqual(['appsecret', 'clientId', 'clientSecret', 'password', 'user']);
    expect(first).toMatchObject({ clientId: 'svc-cli', clientSecret: first.appsecret });
    expect(first.user).toBe('demo');
    expect(readFileSync(sandboxFiles(dataDir).credentials, 'utf8')).toContain(first.password);
    const second = await reset();
    expect(second.password).not.toBe(first.password);
    expect(second.appsecret).not.toBe(first.appsecret);
  });
});

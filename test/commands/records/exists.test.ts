import { beforeAll, describe, expect, it } from 'vitest';
import { existsVerb } from '../../../src/commands/records/exists/command.js';
import type { ExistsOptions } from '../../../src/commands/records/exists/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, optionsOf, refusal } from './support.js';

describe('accounts exists: flags → options', () => {
  it('takes the ID alone, a positive whole number', () => {
    expect(optionsOf<ExistsOptions>(existsVerb, 'accounts', { args: ['7'] })).toEqual({ family: family('accounts'), id: '7' });
    expect(refusal(existsVerb, 'accounts', { args: ['-1'] })).toBe("invalid record ID '-1'; IDs are positive whole numbers");
  });
});

describe('accounts exists: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  let id = 0;

  beforeAll(async () => {
    id = (await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: 'ExistsCmd', currency: 'EUR' } })).json<{ ID: number }>().ID;
  });

  it('answers by the exit code alone: 0 when the record exists, 3 when not', async () => {
    expect(await run(['accounts', 'exists', String(id)])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await run(['accounts', 'exists', '999999'])).toMatchObject({ code: 3, stdout: '', stderr: '' });
    expect(sandbox().sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`HEAD /demo/api/v1/accounts/${id}`, 'HEAD /demo/api/v1/accounts/999999']);
  });

  it('refuses a bad ID with exit 2 and nothing sent', async () => {
    expect(await run(['accounts', 'exists', 'x'])).toMatchObject({ code: 2, stdout: '', stderr: "svc: invalid record ID 'x'; IDs are positive whole numbers\n" });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { getVerb } from '../../../src/commands/records/get/command.js';
import type { GetOptions } from '../../../src/commands/records/get/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, optionsOf, refusal } from './support.js';

describe('accounts get: flags → options', () => {
  it('checks --expand against the catalogue: only composite and bin file fields expand (exit 2, nothing sent)', () => {
    expect(refusal(getVerb, 'accounts', { args: ['1'], flags: { expand: 'lastname' } })).toBe(
      "cannot expand 'lastname' on accounts: it has no field that expands (see 'svc describe accounts')",
    );
    expect(refusal(getVerb, 'items', { args: ['1'], flags: { expand: 'picbinfle' } })).toBe(
      "cannot expand 'picbinfle' on items; did you mean 'picbinfile'? (fields that expand: picbinfile, foreigntaxrates)",
    );
    expect(refusal(getVerb, 'items', { args: ['1'], flags: { expand: '__proto__' } })).toMatch(/^cannot expand '__proto__' on items/);
  });

  it('reads the ID and the flags', () => {
    expect(optionsOf<GetOptions>(getVerb, 'accounts', { args: ['42'] })).toEqual({ family: family('accounts'), id: '42', extdata: false, tags: false });
    expect(optionsOf<GetOptions>(getVerb, 'items', { args: ['42'], flags: { expand: 'picbinfile, foreigntaxrates', extdata: true, tags: true, ifNoneMatch: '"e"', tz: 'UTC' } })).toEqual({
      family: family('items'),
      id: '42',
      expand: ['picbinfile', 'foreigntaxrates'],
      extdata: true,
      tags: true,
      ifNoneMatch: '"e"',
      tz: 'UTC',
    });
  });

  it('refuses an ID that is no positive number, and --extdata where get has none', () => {
    expect(refusal(getVerb, 'accounts', { args: ['abc'] })).toBe("invalid record ID 'abc'; IDs are positive whole numbers");
    expect(refusal(getVerb, 'accounts', { args: ['0'] })).toBe("invalid record ID '0'; IDs are positive whole numbers");
    expect(refusal(getVerb, 'addresses', { args: ['1'], flags: { extdata: true } })).toBe(
      "addresses records have no extdata to show; --extdata works on families whose get lists it (see 'svc describe addresses')",
    );
  });
});

describe('accounts get: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  let id = 0;

  beforeAll(async () => {
    const r = await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: 'GetCmd', currency: 'EUR', type: 1, extdata: { n: 7 }, tags: ['vip'] } });
    id = r.json<{ ID: number }>().ID;
  });

  it('writes the record as the service sends it in a pipe, with extdata and tags when asked', async () => {
    const r = await run(['accounts', 'get', String(id), '--extdata', '--tags']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ID: id, lastname: 'GetCmd', type: 1, extdata: { n: 7 }, tags: ['vip'] });
    expect(sandbox().sandbox.hooks.requests[0]).toMatchObject({ method: 'GET', url: `/demo/api/v1/accounts/${id}?extdata=1&tags=1` });
  });

  it('shows one field a row on a terminal, with enum names, and the ETag with --verbose', async () => {
    const r = await run(['accounts', 'get', String(id), '--verbose'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^lastname:\s+GetCmd$/m);
    expect(r.stdout).toMatch(/^type:\s+CUSTOMER$/m);
    expect(r.stderr).toMatch(/^ETag: "[0-9a-f]+"$/m);
  });

  it('says "unchanged" on stderr, nothing on stdout, when the record still has the ETag', async () => {
    const etag = String((await sandbox().call('GET', `api/v1/accounts/${id}`)).headers.etag);
    const r = await run(['accounts', 'get', String(id), '--if-none-match', etag]);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `accounts ${id} is unchanged (ETag ${etag})\n` });
  });

  it('answers exit 3 for a record that does not exist', async () => {
    const r = await run(['accounts', 'get', '999999']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { deleteVerb } from '../../../src/commands/records/delete/command.js';
import type { DeleteOptions } from '../../../src/commands/records/delete/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, optionsOf, refusal } from './support.js';

describe('accounts delete: flags → options', () => {
  it('reads the ID, --yes and --if-match', () => {
    expect(optionsOf<DeleteOptions>(deleteVerb, 'accounts', { args: ['42'] })).toEqual({ family: family('accounts'), id: '42', yes: false });
    expect(optionsOf<DeleteOptions>(deleteVerb, 'accounts', { args: ['42'], flags: { yes: true, ifMatch: '"e"' } })).toEqual({ family: family('accounts'), id: '42', yes: true, ifMatch: '"e"' });
    expect(refusal(deleteVerb, 'accounts', { args: ['4x'] })).toBe("invalid ID '4x' for accounts; give the record's whole-number ID");
  });
});

describe('accounts delete: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  const newAccount = async (): Promise<number> => (await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: 'DeleteCmd', currency: 'EUR' } })).json<{ ID: number }>().ID;

  it('deletes with --yes, says so, and the record is gone', async () => {
    const id = await newAccount();
    sandbox().sandbox.hooks.reset();
    sandbox().sandbox.hooks.record = true;
    const r = await run(['accounts', 'delete', String(id), '--yes']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `deleted accounts ${id}\n` });
    expect(sandbox().sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`DELETE /demo/api/v1/accounts/${id}`]);
    expect((await sandbox().call('GET', `api/v1/accounts/${id}`)).status).toBe(404);
  });

  it('asks on a terminal and keeps the record unless the answer is y', async () => {
    const id = await newAccount();
    const no = await run(['accounts', 'delete', String(id)], { tty: true, stdin: ['n\n'] });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(`svc: not deleted: accounts ${id} was kept (answer y to delete it, or pass --yes)\n`);
    const yes = await run(['accounts', 'delete', String(id)], { tty: true, stdin: ['y\n'] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain(`deleted accounts ${id}\n`);
  });

  it('refuses without --yes when there is no terminal to ask on (exit 2, nothing sent)', async () => {
    const r = await run(['accounts', 'delete', '1']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'svc: delete accounts 1 needs confirmation and there is no terminal to ask on; pass --yes\n' });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('answers exit 3 for a record that does not exist', async () => {
    const r = await run(['accounts', 'delete', '999999', '--yes']);
    expect(r).toMatchObject({ code: 3, stderr: 'svc: accounts 999999 does not exist (or is not visible to you); check the ID\n' });
  });
});

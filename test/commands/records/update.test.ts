import { beforeAll, describe, expect, it } from 'vitest';
import { updateVerb } from '../../../src/commands/records/update/command.js';
import type { UpdateOptions } from '../../../src/commands/records/update/options.js';
import { sandboxCli } from '../../helpers/cli.js';
import { family, optionsOf, refusal } from './support.js';

describe('accounts update: flags → options', () => {
  it('reads the ID, the field arguments and --if-match', () => {
    expect(optionsOf<UpdateOptions>(updateVerb, 'accounts', { args: ['42', ['lastname=New', '+tags=x']], flags: { ifMatch: '"abc"' } })).toEqual({
      family: family('accounts'),
      path: 'svc accounts update',
      id: '42',
      words: ['lastname=New', '+tags=x'],
      ifMatch: '"abc"',
    });
  });

  it('refuses a bad ID before the body, and unknown options', () => {
    expect(refusal(updateVerb, 'accounts', { args: ['abc', ['--bogus']] })).toBe("invalid ID 'abc' for accounts; give the record's whole-number ID");
    expect(refusal(updateVerb, 'accounts', { args: ['1', ['-x=1']] })).toBe("unknown option '-x' (run 'svc accounts update --help')");
  });
});

describe('accounts update: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  let id = 0;

  beforeAll(async () => {
    id = (await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: 'UpdateCmd', currency: 'EUR' } })).json<{ ID: number }>().ID;
  });

  it('sends PATCH with only the given fields and shows the updated record', async () => {
    const r = await run(['accounts', 'update', String(id), 'firstname=Ada', 'extdata.size:=3']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ID: id, lastname: 'UpdateCmd', firstname: 'Ada' });
    expect(r.stderr).toBe(`updated accounts ${id}\n`);
    expect(sandbox().sandbox.hooks.requests[0]).toMatchObject({ method: 'PATCH', url: `/demo/api/v1/accounts/${id}`, body: { firstname: 'Ada', extdata: { size: 3 } } });
  });

  it('shows the record on a terminal as get does (enum names, dates in the --tz zone), and create too', async () => {
    const updated = await run(['accounts', 'update', String(id), 'firstname=Cy', 'type=CUSTOMER', '--tz', 'UTC'], { tty: true });
    expect(updated.code, updated.stderr).toBe(0);
    const got = await run(['accounts', 'get', String(id), '--tz', 'UTC'], { tty: true });
    expect(updated.stdout).toBe(got.stdout);
    expect(got.stdout).toMatch(/^type: +CUSTOMER$/m);
    expect(got.stdout).toMatch(/^creationdate: +\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/m);
    const created = await run(['accounts', 'create', 'lastname=ShownAlike', 'currency=EUR', 'type=CUSTOMER', '--tz', 'UTC'], { tty: true });
    expect(created.code, created.stderr).toBe(0);
    const newId = /^ID: +(\d+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(created.stdout).toBe((await run(['accounts', 'get', newId, '--tz', 'UTC'], { tty: true })).stdout);
  });

  it('sends If-Match and turns a stale ETag into exit 5 with the fix', async () => {
    const r = await run(['accounts', 'update', String(id), 'firstname=Bob', '--if-match', '"stale"']);
    expect(r).toMatchObject({ code: 5, stdout: '', stderr: 'svc: the record changed since it was read (ETag "stale"); get it again and retry\n' });
    expect(sandbox().sandbox.hooks.requests[0]?.headers['if-match']).toBe('"stale"');
  });

  it('says there is nothing to update, with exit 2 and nothing sent', async () => {
    const r = await run(['accounts', 'update', String(id)]);
    expect(r).toMatchObject({ code: 2, stderr: "svc: nothing to update; give field=value arguments, --data or --data-file (see 'svc accounts update --help')\n" });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});

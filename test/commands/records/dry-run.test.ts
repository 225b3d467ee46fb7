/**
 * `--dry-run` on create, update, delete (one record and --filter) and import:
 * what would be sent (method, URL, headers with the token redacted, body), or
 * the plan of a bulk write; nothing that writes crosses the wire (the reads a
 * plan needs do), and the token is never printed.
 */
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../../helpers/cli.js';
import { accountsNamed, insertAccount, rowsFile } from './import-support.js';

describe('--dry-run: what the user sees', () => {
  const { sandbox, run } = sandboxCli();
  const api = (): string => `${sandbox.instanceUrl}/api/v1`;
  const writes = (): string[] => sandbox().sandbox.hooks.requests.filter((q) => q.method !== 'POST' && q.method !== 'GET').map((q) => `${q.method} ${q.url}`);

  it('create: the PUT with its body, nothing sent', async () => {
    const r = await run(['accounts', 'create', 'lastname=DryCreate', 'currency=EUR', 'type=customer', '--dry-run']);
    expect(r).toEqual({
      code: 0,
      stdout: `PUT ${api()}/accounts\nauthorization: Bearer [redacted]\ncontent-type: application/json\n\n{\n  "lastname": "DryCreate",\n  "currency": "EUR",\n  "type": 1\n}\n`,
      stderr: 'dry run: nothing was sent\n',
    });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
    expect(r.stdout).not.toContain(sandbox.token());
  });

  it('create: a body the catalogue refuses is still exit 2, as without --dry-run', async () => {
    const r = await run(['accounts', 'create', 'lastname=DryCreate', '--dry-run']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
  });

  it('update and delete of one record: the PATCH and the DELETE with their If-Match, nothing sent', async () => {
    const u = await run(['accounts', 'update', '7', 'firstname=Ada', '--if-match', '"e1"', '--dry-run']);
    expect(u.stdout).toBe(`PATCH ${api()}/accounts/7\nauthorization: Bearer [redacted]\ncontent-type: application/json\nif-match: "e1"\n\n{\n  "firstname": "Ada"\n}\n`);
    const d = await run(['accounts', 'delete', '7', '--dry-run']);
    expect(d).toEqual({ code: 0, stdout: `DELETE ${api()}/accounts/7\nauthorization: Bearer [redacted]\n`, stderr: 'dry run: nothing was sent\n' });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('update --filter: the count and the plan, from reads only; no --yes needed', async () => {
    const ids = [1, 2, 3, 4, 5, 6, 7].map((i) => insertAccount(sandbox(), { lastname: `DryBulk${i}` }));
    const r = await run(['accounts', 'update', '--filter', 'lastname ~ "^DryBulk"', 'firstname=Z', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('7 accounts records match the filter\ndry run: nothing was written\n');
    expect(r.stdout).toBe(
      [
        `update 7 accounts records, each: GET ${api()}/accounts/ID for its ETag, then`,
        `PATCH ${api()}/accounts/ID {"firstname":"Z"}`,
        '  authorization: Bearer [redacted]',
        '  content-type: application/json',
        '  if-match: <the ETag the GET answered>',
        '',
        'first 5:',
        ...ids.slice(0, 5).map((id) => `  PATCH ${api()}/accounts/${id} {"firstname":"Z"}`),
        '  … and 2 more',
        '',
      ].join('\n'),
    );
    expect(sandbox().sandbox.hooks.requests.map((q) => q.method)).toEqual(['POST', 'POST']);
    expect(accountsNamed(sandbox(), 'DryBulk').every((a) => a.firstname === '')).toBe(true);
  });

  it('delete --filter: the plan, nothing deleted', async () => {
    insertAccount(sandbox(), { lastname: 'DryDel1' });
    const r = await run(['accounts', 'delete', '--filter', 'lastname = "DryDel1"', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^delete 1 accounts record, each: GET .*\/accounts\/ID for its ETag, then\nDELETE .*\/accounts\/ID\n {2}authorization: Bearer \[redacted\]\n {2}if-match: <the ETag the GET answered>\n\nfirst 1:\n {2}DELETE .*\/accounts\/\d+\n$/);
    expect(writes()).toEqual([]);
    expect(accountsNamed(sandbox(), 'DryDel1')).toHaveLength(1);
  });

  it('import: the plan with --key (the lookups are the only requests): creates, updates, unchanged and the first rows of each', async () => {
    const s = sandbox();
    const upd = insertAccount(s, { lastname: 'DryImpOld', customernum: 'DRY-1' });
    const same = insertAccount(s, { lastname: 'DryImpSame', customernum: 'DRY-2' });
    const csv = 'lastname,customernum,currency,type\nDryImpNew,DRY-1,EUR,1\nDryImpSame,DRY-2,EUR,1\nDryImpA,DRY-3,EUR,1\nDryImpB,DRY-4,USD,1\n';
    const file = rowsFile('plan.csv', csv);
    const r = await run(['accounts', 'import', '--from', file, '--key', 'customernum', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('dry run: nothing was written\n');
    expect(r.stdout).toBe(
      [
        `accounts import (${file}, 4 rows): 2 creates, 1 update, 1 unchanged`,
        'each write carries: authorization: Bearer [redacted]; content-type: application/json',
        '',
        'create (2):',
        `  line 4: PUT ${api()}/accounts {"lastname":"DryImpA","customernum":"DRY-3","currency":"EUR","type":1}`,
        `  line 5: PUT ${api()}/accounts {"lastname":"DryImpB","customernum":"DRY-4","currency":"USD","type":1}`,
        '',
        'update (1):',
        `  line 2: PATCH ${api()}/accounts/${upd} {"lastname":"DryImpNew","customernum":"DRY-1","currency":"EUR","type":1}`,
        '',
        'unchanged (not sent) (1):',
        `  line 3: accounts ${same}`,
        '',
      ].join('\n'),
    );
    expect(s.sandbox.hooks.requests.map((q) => q.method)).toEqual(['POST']);
    expect(accountsNamed(s, 'DryImp').map((a) => a.lastname)).toEqual(['DryImpOld', 'DryImpSame']);
  });
});

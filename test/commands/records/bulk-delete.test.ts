/**
 * `svc accounts delete --filter EXPR`: flags → options, then against a
 * sandbox: the count first, --yes without a terminal, DELETE with If-Match of
 * the ETag each record was read with, a record changed meanwhile kept and
 * reported, one gone meanwhile counted as deleted, one others depend on
 * reported, the results file at --concurrency 4.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deleteVerb } from '../../../src/commands/records/delete/command.js';
import type { DeleteOptions } from '../../../src/commands/records/delete/options.js';
import { table } from '../../../src/sandbox/schema.js';
import { sandboxCli } from '../../helpers/cli.js';
import { accountsNamed, insertAccount, readResults, tempDir } from './import-support.js';
import { family, NO_FILTER, optionsOf, refusal } from './support.js';

describe('accounts delete --filter: flags → options', () => {
  it('reads the filter and the bulk flags; refuses an ID beside it and bulk flags without it', () => {
    expect(optionsOf<DeleteOptions>(deleteVerb, 'accounts', { flags: { filter: ['ID > 5'], yes: true } })).toEqual({
      family: family('accounts'),
      yes: true,
      byFilter: { filter: { ...NO_FILTER, filter: ['ID > 5'] }, yes: true, concurrency: 1 },
    });
    expect(refusal(deleteVerb, 'accounts', { args: ['42'], flags: { filter: ['ID > 5'] } })).toBe("give a record ID or --filter, not both (run 'svc accounts delete --help')");
    expect(refusal(deleteVerb, 'accounts', { args: ['42'], flags: { results: 'r' } })).toBe("--results goes with --filter (deleting every matching record); without it, give one record's ID");
    expect(refusal(deleteVerb, 'accounts', {})).toBe("give the record's ID, or --filter EXPR to delete every matching record (run 'svc accounts delete --help')");
  });
});

describe('accounts delete --filter: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();

  it('needs --yes without a terminal: the count, then exit 2 naming it, nothing deleted', async () => {
    [1, 2].forEach((i) => insertAccount(sandbox(), { lastname: `DelAsk${i}` }));
    const r = await run(['accounts', 'delete', '--filter', 'lastname ~ "^DelAsk"']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: '2 accounts records match the filter\nsvc: delete 2 accounts records needs confirmation and there is no terminal to ask on; pass --yes\n' });
    expect(accountsNamed(sandbox(), 'DelAsk')).toHaveLength(2);
  });

  it('deletes every match with If-Match; keeps one changed meanwhile, counts one gone meanwhile as deleted', async () => {
    const s = sandbox();
    const ids = [1, 2, 3, 4, 5, 6].map((i) => insertAccount(s, { lastname: `DelMany${i}` }));
    const [changed, gone] = ids;
    const t = table('demo', 'accounts');
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'DELETE') return;
      if (url.endsWith(`/accounts/${changed}`)) s.sandbox.db.prepare(`UPDATE ${t} SET firstname = 'Theirs', "_rev" = "_rev" + 1 WHERE ID = ?`).run(changed);
      if (url.endsWith(`/accounts/${gone}`)) s.sandbox.db.prepare(`DELETE FROM ${t} WHERE ID = ?`).run(gone);
    };
    const results = join(tempDir(), 'r.ndjson');
    const r = await run(['accounts', 'delete', '--filter', 'lastname ~ "^DelMany"', '--yes', '--concurrency', '4', '--results', results]);
    s.sandbox.hooks.onArrival = undefined;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`  ${changed}: delete failed: it changed since it was read (ETag "`);
    expect(r.stderr).toContain('accounts delete (6 records): 5 deleted, 1 failed\n');
    const byId = new Map(readResults(results).map((l) => [l.id, l]));
    expect(byId.get(changed as number)).toMatchObject({ action: 'delete', status: 412 });
    expect(byId.get(gone as number)).toMatchObject({ action: 'delete', status: 404, error: null });
    for (const id of ids.slice(2)) expect(byId.get(id)).toMatchObject({ action: 'delete', status: 204, error: null });
    expect(accountsNamed(s, 'DelMany').map((a) => a.ID)).toEqual([changed]);
    for (const q of s.sandbox.hooks.requests.filter((x) => x.method === 'DELETE')) expect(q.headers['if-match']).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('reports a record others depend on (409) and deletes the rest', async () => {
    const s = sandbox();
    const parent = insertAccount(s, { lastname: 'DelParent1' });
    insertAccount(s, { lastname: 'DelParent2' });
    const contact = (await s.call('PUT', 'api/v1/contacts', { json: { lastname: 'DelContact' } })).json<{ ID: number }>().ID;
    const put = await s.call('PUT', 'api/v1/addresses', { json: { account: parent, contact } });
    expect(put.status, put.text).toBe(201);
    const r = await run(['accounts', 'delete', '--filter', 'lastname ~ "^DelParent"', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`  ${parent}: delete failed: others depend on it \\(DELETE .* failed with 409: .*\\); delete or change them first\\n`));
    expect(accountsNamed(s, 'DelParent').map((a) => a.ID)).toEqual([parent]);
  });
});

/**
 * `svc accounts update --filter EXPR field=value…`: flags → options, then
 * against a sandbox: the count first, --yes without a terminal, the question
 * on one, If-Match of the ETag each record was read with, a record changed
 * meanwhile reported (412, or a newer lastmodified) and never overwritten,
 * unchanged records left alone, the results file, --concurrency.
 */
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateVerb } from '../../../src/commands/records/update/command.js';
import type { UpdateOptions } from '../../../src/commands/records/update/options.js';
import { table } from '../../../src/sandbox/schema.js';
import { sandboxCli } from '../../helpers/cli.js';
import { accountsNamed, insertAccount, readResults, tempDir } from './import-support.js';
import { family, NO_FILTER, optionsOf, refusal } from './support.js';

describe('accounts update --filter: flags → options', () => {
  it('takes every argument as a field with --filter, and the bulk flags', () => {
    expect(optionsOf<UpdateOptions>(updateVerb, 'accounts', { args: ['firstname=Ada', ['+tags=x']], flags: { filter: ['type = CUSTOMER'], yes: true, concurrency: '4', results: 'r.ndjson' } })).toEqual({
      family: family('accounts'),
      path: 'svc accounts update',
      words: ['firstname=Ada', '+tags=x'],
      byFilter: { filter: { ...NO_FILTER, filter: ['type = CUSTOMER'] }, yes: true, concurrency: 4, results: 'r.ndjson' },
    });
  });

  it('refuses an ID with --filter, --if-match with --filter, and bulk flags without it', () => {
    expect(refusal(updateVerb, 'accounts', { args: ['42', ['a=1']], flags: { filter: ['ID > 1'] } })).toBe("give a record ID or --filter, not both (run 'svc accounts update --help')");
    expect(refusal(updateVerb, 'accounts', { args: ['a=1', []], flags: { filter: ['ID > 1'], ifMatch: '"x"' } })).toBe('--filter writes each record with the ETag it was read with; drop --if-match');
    expect(refusal(updateVerb, 'accounts', { args: ['42', ['a=1']], flags: { yes: true } })).toBe("--yes goes with --filter (updating every matching record); without it, give one record's ID");
    expect(refusal(updateVerb, 'accounts', { args: [] })).toBe("give the record's ID, or --filter EXPR to update every matching record (run 'svc accounts update --help')");
  });
});

describe('accounts update --filter: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();

  it('shows the count and refuses without --yes when there is no terminal (exit 2, nothing written)', async () => {
    [1, 2, 3].forEach((i) => insertAccount(sandbox(), { lastname: `BulkAsk${i}` }));
    const r = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkAsk"', 'firstname=X']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: '3 accounts records match the filter\nsvc: update 3 accounts records needs confirmation and there is no terminal to ask on; pass --yes\n' });
    expect(sandbox().sandbox.hooks.requests.map((q) => q.method)).toEqual(['POST']);
    const no = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkAsk"', 'firstname=X'], { tty: true, stdin: ['n\n'] });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain('update 3 accounts records? [y/N]: ');
    expect(no.stderr).toContain('svc: nothing was written (answer y to go ahead, or pass --yes)\n');
    const yes = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkAsk"', 'firstname=Y'], { tty: true, stdin: ['y\n'] });
    expect(yes.code, yes.stderr).toBe(0);
    expect(accountsNamed(sandbox(), 'BulkAsk').map((a) => a.firstname)).toEqual(['Y', 'Y', 'Y']);
  });

  it('writes each record with If-Match of the ETag its GET answered; unchanged ones are left alone', async () => {
    const s = sandbox();
    const ids = [1, 2, 3, 4].map((i) => insertAccount(s, { lastname: `BulkIf${i}`, firstname: i === 2 ? 'Done' : 'Old' }));
    s.sandbox.hooks.reset();
    s.sandbox.hooks.record = true;
    const results = join(tempDir(), 'r.ndjson');
    const r = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkIf"', 'firstname=Done', '--yes', '--results', results, '--concurrency', '4']);
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: '', stderr: '4 accounts records match the filter\naccounts update (4 records): 3 updated, 1 unchanged, 0 failed\n' });
    const byId = new Map(readResults(results).map((l) => [l.id, l]));
    expect(byId.get(ids[1] as number)).toMatchObject({ action: 'unchanged', status: null, error: null });
    for (const id of [ids[0], ids[2], ids[3]]) expect(byId.get(id as number)).toMatchObject({ action: 'update', status: 200, error: null });
    const reqs = s.sandbox.hooks.requests;
    for (const id of [ids[0], ids[2], ids[3]]) {
      const get = reqs.find((q) => q.method === 'GET' && q.url === `/demo/api/v1/accounts/${id}`);
      const patch = reqs.find((q) => q.method === 'PATCH' && q.url === `/demo/api/v1/accounts/${id}`);
      expect(patch?.body).toEqual({ firstname: 'Done' });
      expect(patch?.headers['if-match']).toMatch(/^"[0-9a-f]{32}"$/);
      expect(reqs.indexOf(get as never)).toBeLessThan(reqs.indexOf(patch as never));
    }
    expect(reqs.some((q) => q.method === 'PATCH' && q.url.endsWith(`/${ids[1]}`))).toBe(false);
  });

  it('reports a record changed after its GET (412) and one changed after it matched, and overwrites neither (exit 1)', async () => {
    const s = sandbox();
    const [a, b, c] = [1, 2, 3].map((i) => insertAccount(s, { lastname: `BulkRace${i}`, lastmodified: 1000 }));
    const t = table('demo', 'accounts');
    s.sandbox.hooks.onArrival = (method, url) => {
      // Someone else writes `a` between svc's GET and its PATCH: the PATCH's If-Match no longer holds.
      if (method === 'PATCH' && url.endsWith(`/accounts/${a}`)) s.sandbox.db.prepare(`UPDATE ${t} SET firstname = 'Theirs', "_rev" = "_rev" + 1 WHERE ID = ?`).run(a);
      // `b` changes after the query matched it and before svc reads it.
      if (method === 'GET' && url.endsWith(`/accounts/${b}`)) s.sandbox.db.prepare(`UPDATE ${t} SET firstname = 'Theirs', lastmodified = 2000, "_rev" = "_rev" + 1 WHERE ID = ?`).run(b);
    };
    const results = join(tempDir(), 'r.ndjson');
    const r = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkRace"', 'firstname=Mine', '--yes', '--results', results]);
    s.sandbox.hooks.onArrival = undefined;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`  ${a}: update failed: it changed since it was read (ETag "`);
    expect(r.stderr).toContain(`  ${b}: update failed: it changed since it matched the filter (lastmodified differs); not written: check it and run again\n`);
    expect(r.stderr).toContain('accounts update (3 records): 1 updated, 0 unchanged, 2 failed\n');
    expect(r.stderr).toMatch(/svc: 2 of 3 records were not updated; see .*r\.ndjson\n$/);
    expect(readResults(results).map((l) => [l.id, l.action, l.status])).toEqual([
      [a, 'update', 412],
      [b, 'update', null],
      [c, 'update', 200],
    ]);
    expect(accountsNamed(s, 'BulkRace').map((x) => x.firstname)).toEqual(['Theirs', 'Theirs', 'Mine']);
  });

  it('matches nothing: says so and exits 0; an empty filter is refused', async () => {
    const none = await run(['accounts', 'update', '--filter', 'lastname = "NoSuchBulk"', 'firstname=X']);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: '0 accounts records match the filter\n' });
    const empty = await run(['accounts', 'update', '--filter-json', '{}', 'firstname=X', '--yes']);
    expect(empty).toMatchObject({ code: 2, stderr: "svc: the filter matches every accounts record; give a condition (update does not take an empty filter)\n" });
  });

  it('--results is locked as import locks it: a live holder of RESULTS.svc-lock is named, nothing counted or written, its file left alone; the lock is removed after a run', async () => {
    [1, 2].forEach((i) => insertAccount(sandbox(), { lastname: `BulkLock${i}` }));
    const dir = tempDir();
    const results = join(dir, 'r.ndjson');
    const holder = { pid: process.ppid, host: hostname(), since: '2026-11-01T00:00:00.000Z', what: 'svc accounts update --filter … --results r.ndjson' };
    writeFileSync(`${results}.svc-lock`, `${JSON.stringify(holder)}\n`);
    writeFileSync(results, 'kept\n');
    const held = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkLock"', 'firstname=L', '--yes', '--results', results]);
    expect(held.code, held.stderr).not.toBe(0);
    expect(held.stderr).toMatch(/another svc run is writing .*r\.ndjson .*svc accounts update --filter/);
    expect(held.stderr).not.toMatch(/match/);
    expect(readFileSync(results, 'utf8')).toBe('kept\n');
    expect(accountsNamed(sandbox(), 'BulkLock1')[0]?.firstname).not.toBe('L');
    rmSync(`${results}.svc-lock`);
    const r = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkLock"', 'firstname=L', '--yes', '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    expect(readResults(results)).toHaveLength(2);
    expect(existsSync(`${results}.svc-lock`)).toBe(false);
  });

  it('refuses a --results file with a second hard link (exit 2), before anything is counted', async () => {
    insertAccount(sandbox(), { lastname: 'BulkHard1' });
    const dir = tempDir();
    const other = join(dir, 'other.ndjson');
    writeFileSync(other, 'kept\n');
    linkSync(other, join(dir, 'r.ndjson'));
    const r = await run(['accounts', 'update', '--filter', 'lastname ~ "^BulkHard"', 'firstname=H', '--yes', '--results', join(dir, 'r.ndjson')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: --results '.*r\.ndjson' has 1 other name \(a hard link\), which svc would write through; name a file of its own\n$/);
    expect(readFileSync(other, 'utf8')).toBe('kept\n');
  });
});

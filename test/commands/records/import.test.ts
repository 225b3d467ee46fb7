/**
 * `svc accounts import`: flags → options without a server; then CSV, NDJSON
 * and JSON-array files against a real sandbox: good, bad and conflicting
 * rows, hostile values, --key upserts, the results file, --skip-invalid,
 * connections cut before and after the sandbox created the record (at
 * concurrency 1 and 4, seeded), --resume without a duplicate, and Ctrl-C.
 * Replay the seeded cases: SVC_IMPORT_SEED=<n> npx vitest run test/commands/records/import.test.ts
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importVerb } from '../../../src/commands/records/import/command.js';
import type { ImportOptions } from '../../../src/commands/records/import/options.js';
import { table } from '../../../src/sandbox/schema.js';
import { createRandom } from '../../../src/util/random.js';
import { seedTrickyAccounts } from '../../export/support.js';
import { sandboxCli } from '../../helpers/cli.js';
import { accountsNamed, countByKey, insertAccount, readResults, rowsFile, signallable, startCuttingProxy, tempDir, type CuttingProxy } from './import-support.js';
import { family, optionsOf, refusal } from './support.js';

const SEED = process.env.SVC_IMPORT_SEED ? Number(process.env.SVC_IMPORT_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_IMPORT_SEED=${SEED} npx vitest run test/commands/records/import.test.ts`;

describe('accounts import: flags → options', () => {
  it('reads --from, --key, --results, --concurrency and the switches', () => {
    expect(optionsOf<ImportOptions>(importVerb, 'accounts', { flags: { from: 'a.csv', key: 'customernum', results: 'r.ndjson', concurrency: '4', resume: true, skipInvalid: true } })).toEqual({
      family: family('accounts'),
      from: 'a.csv',
      key: 'customernum',
      results: 'r.ndjson',
      concurrency: 4,
      skipInvalid: true,
      resume: true,
      dryRun: false,
    });
    expect(optionsOf<ImportOptions>(importVerb, 'accounts', { flags: { from: '-', format: 'ndjson' } })).toMatchObject({ from: '-', format: 'ndjson', concurrency: 1 });
  });

  it('refuses what cannot work before anything is read', () => {
    expect(refusal(importVerb, 'accounts', {})).toBe('give the file to import: --from FILE (CSV, NDJSON or a JSON array), or --from - for stdin');
    expect(refusal(importVerb, 'accounts', { flags: { from: 'a', key: 'customernm' } })).toBe("unknown field 'customernm' for --key on accounts; did you mean 'customernum'? (run 'svc describe accounts')");
    expect(refusal(importVerb, 'accounts', { flags: { from: 'a', key: 'ID' } })).toMatch(/^rows with an ID column are updated by ID already/);
    expect(refusal(importVerb, 'accounts', { flags: { from: 'a', resume: true } })).toBe('--resume continues from the results file: give it with --results FILE');
    expect(refusal(importVerb, 'accounts', { flags: { from: 'a', concurrency: '17' } })).toBe("--concurrency takes a whole number from 1 to 16, not '17'");
    expect(refusal(importVerb, 'accounts', { flags: { from: 'a', format: 'xml' } })).toBe("unknown --format 'xml'; choose csv, ndjson, json");
    expect(refusal(importVerb, 'accounts', { flags: { from: 'rows.csv', results: './rows.csv' } })).toBe("--results would overwrite the file being imported ('rows.csv'); name another file");
  });
});

describe('accounts import: options → what the user sees', () => {
  const { sandbox, run } = sandboxCli();

  it('creates the rows of a CSV file with a BOM, CRLF line ends, quoted values and enum names; one results line per row', async () => {
    const csv = '\ufefflastname,currency,type,description,customernum\r\n' + 'CsvOne,EUR,CUSTOMER,plain,CSV-1\r\n' + '"CsvTwo, Inc",USD,1,"two\r\nlines ""quoted""",CSV-2\r\n' + 'CsvThree,CHF,prospect,,CSV-3\r\n';
    const dir = tempDir();
    const file = rowsFile('rows.csv', csv, dir);
    const results = join(dir, 'results.ndjson');
    const r = await run(['accounts', 'import', '--from', file, '--results', results]);
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: '', stderr: `accounts import (${file}, 3 rows): 3 created, 0 updated, 0 unchanged, 0 failed\n` });
    const made = accountsNamed(sandbox(), 'Csv');
    expect(made.map((a) => [a.lastname, a.currency, a.type, a.description, a.customernum])).toEqual([
      ['CsvOne', 'EUR', 1, 'plain', 'CSV-1'],
      ['CsvTwo, Inc', 'USD', 1, 'two\r\nlines "quoted"', 'CSV-2'],
      ['CsvThree', 'CHF', 0, '', 'CSV-3'],
    ]);
    const lines = readResults(results);
    expect(lines.map((l) => [l.line, l.action, l.id, l.status, l.error])).toEqual([
      [2, 'create', made[0]?.ID, 201, null],
      [3, 'create', made[1]?.ID, 201, null],
      [5, 'create', made[2]?.ID, 201, null],
    ]);
    const got = await sandbox().call('GET', `api/v1/accounts/${String(made[0]?.ID)}`);
    expect(lines[0]?.etag).toBe(got.headers.etag);
    // Nothing of the run is left beside the results: no state (every row succeeded), no lock.
    expect(existsSync(`${results}.svc-state.json`) || existsSync(`${results}.svc-lock`)).toBe(false);
  });

  it("reads svc's own CSV back: an export of tricky accounts (quotes, separators, tabs, line breaks, unicode) imports to the same values", async () => {
    const s = sandbox();
    const ids = seedTrickyAccounts(s, 40);
    const dir = tempDir();
    const csv = join(dir, 'tricky.csv');
    const filter = `ID >= ${ids[0]} and ID <= ${ids.at(-1)}`;
    const exported = await run(['accounts', 'export', '--filter', filter, '--fields', 'lastname,currency,type,description', '--format', 'csv', '--output-file', csv, '--crlf']);
    expect(exported.code, exported.stderr).toBe(0);
    const results = join(dir, 'r.ndjson');
    const r = await run(['accounts', 'import', '--from', csv, '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    const made = readResults(results).map((l) => l.id);
    const pick = (id: unknown): unknown => s.sandbox.db.prepare(`SELECT lastname, currency, type, description FROM ${table('demo', 'accounts')} WHERE ID = ?`).get(id);
    expect(made.map(pick)).toEqual(ids.map(pick));
  });

  it('creates and updates from NDJSON and from a JSON array, naming each row by the line it starts on', async () => {
    const id = insertAccount(sandbox(), { lastname: 'JsonOld', customernum: 'JS-0' });
    const ndjson = `{"lastname":"JsonNew","currency":"EUR"}\n\n{"ID":${id},"firstname":"Ada"}\r\n`;
    const r1 = await run(['accounts', 'import', '--from', rowsFile('rows.ndjson', ndjson), '--results', join(tempDir(), 'r.ndjson')]);
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stderr).toMatch(/: 1 created, 1 updated, 0 unchanged, 0 failed\n$/);
    const array = `[\n  {"lastname": "JsonArr",\n   "currency": "EUR"},\n  {"ID": ${id}, "firstname": "Bea"},\n  {"ID": "${id}", "firstname": "Bea"}\n]\n`;
    const results = join(tempDir(), 'r.ndjson');
    const r2 = await run(['accounts', 'import', '--from', rowsFile('rows.json', array), '--results', results]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toBe(`  line 5: ID ${id} is also on line 4; give one row per record\nsvc: 1 of 3 rows in ${r2.stderr.split(' rows in ')[1]?.split(' are')[0]} are invalid (above); nothing was sent: fix them, or pass --skip-invalid to import the others\n`);
    const r3 = await run(['accounts', 'import', '--from', rowsFile('rows.json', array.replace(`{"ID": "${id}", "firstname": "Bea"}`, '{"lastname": "JsonArr2", "currency": "EUR"}')), '--results', results]);
    expect(r3.code, r3.stderr).toBe(0);
    expect(readResults(results).map((l) => [l.line, l.action])).toEqual([
      [2, 'create'],
      [4, 'update'],
      [5, 'create'],
    ]);
    expect(accountsNamed(sandbox(), 'JsonOld')[0]).toMatchObject({ firstname: 'Bea' });
  });

  it('checks every row before sending anything: exit 2 naming each bad row by line and field, at most 20 lines', async () => {
    const good = 'Fine,EUR,CUSTOMER';
    const rows = ['lastname,currency,type', good, 'Bad,EURO,CUSTOMER', 'Worse,EUR,BOSS', ',EUR,1', good.replace('Fine', 'Fine2')];
    for (let i = 0; i < 20; i++) rows.push(`More${i},xx,1`);
    const r = await run(['accounts', 'import', '--from', rowsFile('bad.csv', `${rows.join('\n')}\n`)]);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      "  line 3: accounts.currency must match ^[A-Z]{3}$, not 'EURO' (ISO 4217 code, e.g. EUR)",
      '  line 4: column type: unknown value \'BOSS\' for accounts.type; use one of PROSPECT, CUSTOMER, SUPPLIER, CUSTOMERANDSUPPLIER, COMPETITOR, EMPLOYEE',
      '  line 5: accounts needs lastname or firstname not empty; add lastname=VALUE',
    ]);
    expect(lines[20]).toBe('  … and 3 more problems');
    expect(lines[21]).toMatch(/^svc: 23 of 25 rows in .* are invalid \(above\); nothing was sent: fix them, or pass --skip-invalid to import the others$/);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
    expect(accountsNamed(sandbox(), 'Fine')).toEqual([]);
  });

  it('imports the valid rows with --skip-invalid and records the others as skipped (exit 0)', async () => {
    const results = join(tempDir(), 'r.ndjson');
    const csv = 'lastname,currency\nSkipA,EUR\nSkipB,eur\nSkipC,USD\n';
    const r = await run(['accounts', 'import', '--from', rowsFile('s.csv', csv), '--skip-invalid', '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/: 2 created, 0 updated, 0 unchanged, 0 failed, 1 skipped \(invalid\)\n$/);
    expect(readResults(results).map((l) => [l.line, l.action, l.status, l.error])).toEqual([
      [2, 'create', 201, null],
      [3, 'skip', null, "accounts.currency must match ^[A-Z]{3}$, not 'eur' (ISO 4217 code, e.g. EUR)"],
      [4, 'create', 201, null],
    ]);
  });

  it('names hostile input: prototype keys as fields, bad UTF-8 and a UTF-16 file; a huge value fails its row only', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const csv = 'lastname,currency,__proto__,constructor\nProtoA,EUR,x,y\n';
    const r1 = await run(['accounts', 'import', '--from', rowsFile('p.csv', csv)]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("  line 2: unknown field '__proto__' on accounts; see 'svc describe accounts'\n");
    expect(r1.stderr).toContain("  line 2: unknown field 'constructor' on accounts;");
    const json = '{"lastname":"ProtoB","currency":"EUR","__proto__":{"polluted":1}}\n{"lastname":"ProtoC","currency":"EUR","prototype":1}\n';
    const r2 = await run(['accounts', 'import', '--from', rowsFile('p.ndjson', json)]);
    expect(r2.stderr).toContain("  line 1: unknown field '__proto__' on accounts;");
    expect(r2.stderr).toContain("  line 2: unknown field 'prototype' on accounts;");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const deep = `{"lastname":"DeepA","currency":"EUR"}\n{"lastname":${'['.repeat(100_000)}${']'.repeat(100_000)},"currency":"EUR"}\n`;
    const rd = await run(['accounts', 'import', '--from', rowsFile('d.ndjson', deep)]);
    expect(rd.stderr).toMatch(/^ {2}line 2: nested more than 64 levels deep; a record's values need far fewer\nsvc: 1 of 2 rows/);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    const bytes = Buffer.concat([Buffer.from('lastname,currency\nUtfOk,EUR\nUtf'), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('Bad,EUR\n')]);
    const r3 = await run(['accounts', 'import', '--from', rowsFile('u.csv', bytes)]);
    expect(r3.stderr).toContain('  line 3: not valid UTF-8 (byte 0xff at byte 4 of the line); save the file as UTF-8\n');
    const r4 = await run(['accounts', 'import', '--from', rowsFile('w.csv', Buffer.from('\ufefflastname\n', 'utf16le').subarray(0))]);
    expect(r4).toMatchObject({ code: 2, stderr: expect.stringMatching(/is UTF-16 or UTF-32 text; save it as UTF-8 and import it again\n$/) as unknown });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
    // 2 MiB in one text field: the catalogue has no bound, the service refuses it; the other row goes in.
    const results = join(tempDir(), 'r.ndjson');
    const huge = `lastname,currency,description\nHugeOk,EUR,small\nHugeBig,EUR,${'x'.repeat(2 * 1024 * 1024)}\n`;
    const r5 = await run(['accounts', 'import', '--from', rowsFile('h.csv', huge), '--results', results]);
    expect(r5.code).toBe(1);
    expect(readResults(results).map((l) => [l.line, l.action, l.status])).toEqual([
      [2, 'create', 201],
      [3, 'create', 400],
    ]);
    expect(r5.stderr).toMatch(/^ {2}line 3: create failed: PUT .* failed with 400: field 'description' holds 2,097,152 characters; .*\n.*: 1 created, 0 updated, 0 unchanged, 1 failed\nsvc: 1 of 2 rows failed \(see .*r\.ndjson\); --resume retries the failed ones\n$/);
    expect(accountsNamed(sandbox(), 'Huge').map((a) => a.lastname)).toEqual(['HugeOk']);
  });

  it('upserts by --key: created when new, updated when found, unchanged when equal, failed when the key is on two records', async () => {
    const same = insertAccount(sandbox(), { lastname: 'KeySame', customernum: 'KEY-1' });
    const old = insertAccount(sandbox(), { lastname: 'KeyOld', customernum: 'KEY-2' });
    insertAccount(sandbox(), { lastname: 'KeyTwinA', customernum: 'KEY-3' });
    insertAccount(sandbox(), { lastname: 'KeyTwinB', customernum: 'KEY-3' });
    const ndjson = ['KeySame|KEY-1', 'KeyNew|KEY-2', 'KeyTwin|KEY-3', 'KeyFresh|KEY-4'].map((s) => {
      const [lastname, customernum] = s.split('|');
      return JSON.stringify({ lastname, customernum, currency: 'EUR', type: 1 });
    });
    const results = join(tempDir(), 'r.ndjson');
    const r = await run(['accounts', 'import', '--from', rowsFile('k.ndjson', `${ndjson.join('\n')}\n`), '--key', 'customernum', '--results', results]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 3: update failed: 2 accounts records have customernum = "KEY-3" \(IDs \d+, \d+\); make the key unique, or give the ID\n/);
    expect(r.stderr).toMatch(/: 1 created, 1 updated, 1 unchanged, 1 failed\n/);
    expect(readResults(results).map((l) => [l.line, l.action, l.status])).toEqual([
      [1, 'unchanged', null],
      [2, 'update', 200],
      [3, 'update', null],
      [4, 'create', 201],
    ]);
    expect(readResults(results).slice(0, 2).map((l) => l.id)).toEqual([same, old]);
    expect(Object.fromEntries(countByKey(sandbox(), 'KEY-'))).toEqual({ 'KEY-1': 1, 'KEY-2': 1, 'KEY-3': 2, 'KEY-4': 1 });
    // Only reads and the two writes crossed the wire: one lookup, one PATCH, one PUT.
    expect(sandbox().sandbox.hooks.requests.map((q) => q.method)).toEqual(['POST', 'PATCH', 'PUT']);
    // A fresh run over an unfinished import is refused; --resume retries the failed row only.
    const again = await run(['accounts', 'import', '--from', rowsFile('k.ndjson', `${ndjson.join('\n')}\n`), '--key', 'customernum', '--results', results]);
    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining('records an unfinished import') as unknown });
  });

  it('stops at a refused token (401): the summary, the rows done so far in the results, exit 4; --resume continues', async () => {
    const s = sandbox();
    let puts = 0;
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method === 'PUT' && ++puts === 2) s.sandbox.hooks.failNext({ method, path: url, fault: { status: 401, body: 'token expired' } });
    };
    const results = join(tempDir(), 'r.ndjson');
    const file = rowsFile('t.csv', 'lastname,currency\nTokA,EUR\nTokB,EUR\nTokC,EUR\nTokD,EUR\n');
    const r = await run(['accounts', 'import', '--from', file, '--results', results]);
    s.sandbox.hooks.onArrival = undefined;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/: 1 created, 0 updated, 0 unchanged, 1 failed\nsvc: the service refused the token \(401\) at line 3; run svc login, then run again with --resume\n$/);
    expect(readResults(results).map((l) => [l.line, l.action, l.status])).toEqual([
      [2, 'create', 201],
      [3, 'create', 401],
    ]);
    const resumed = await run(['accounts', 'import', '--from', file, '--results', results, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(accountsNamed(s, 'Tok').map((a) => a.lastname)).toEqual(['TokA', 'TokB', 'TokC', 'TokD']);
  });

  it('retries a create the service refused (503); one whose connection dropped after sending is unknown, not sent again in that run, and --resume, finding it missing by key, creates it', async () => {
    const s = sandbox();
    s.sandbox.hooks.failNext({ method: 'PUT', path: '/api/v1/accounts', fault: { status: 503, body: 'busy' } });
    s.sandbox.hooks.failNext({ method: 'PUT', path: '/api/v1/accounts', fault: { drop: true } });
    const rows = ['RetryA|RT-1', 'RetryB|RT-2'].map((x) => JSON.stringify({ lastname: x.split('|')[0], customernum: x.split('|')[1], currency: 'EUR' }));
    const results = join(tempDir(), 'r.ndjson');
    const argv = ['accounts', 'import', '--from', rowsFile('r.ndjson', `${rows.join('\n')}\n`), '--key', 'customernum', '--results', results];
    const r = await run(argv);
    // A dropped connection does not say the service did not take the create (it may still be at work on it).
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/: 1 created, 0 updated, 0 unchanged, 0 failed, 1 unknown\nsvc: 1 of 2 rows has an unknown outcome \(see .*\); --resume looks the unknown ones up by key again\n$/);
    // Not sent again: the drop came before the sandbox took it, so a second PUT would have made RT-1.
    expect(Object.fromEntries(countByKey(s, 'RT-'))).toEqual({ 'RT-2': 1 });
    expect(readResults(results).map((l) => [l.line, l.action, l.status])).toEqual([
      [1, 'unknown', null],
      [2, 'create', 201],
    ]);
    const resumed = await run([...argv, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(Object.fromEntries(countByKey(s, 'RT-'))).toEqual({ 'RT-1': 1, 'RT-2': 1 });
    expect(readResults(results).map((l) => [l.line, l.action, l.status])).toEqual([
      [1, 'create', 201],
      [2, 'create', 201],
    ]);
  });
});

describe(`accounts import: connections cut after the service created the record, then --resume (seed ${SEED})`, () => {
  const { sandbox, run } = sandboxCli();
  let proxy: CuttingProxy;
  beforeAll(async () => {
    proxy = await startCuttingProxy(sandbox());
  });
  afterAll(async () => proxy.close());

  const ROWS = 30;
  const rowsOf = (prefix: string): string =>
    Array.from({ length: ROWS }, (_, i) => JSON.stringify({ lastname: `${prefix}${i}`, customernum: `${prefix}${i}`, currency: 'EUR', type: 1 })).join('\n') + '\n';

  for (const [ci, concurrency] of [1, 4].entries()) {
    it(`with --key: a lost answer is looked up and recorded as created, never sent twice (concurrency ${concurrency})`, async () => {
      const random = createRandom(SEED + ci);
      const prefix = `CUTK${concurrency}-`;
      const cut = new Set([random.int(1, ROWS), random.int(1, ROWS)]);
      proxy.cutCreates(cut);
      const results = join(tempDir(), 'r.ndjson');
      const argv = ['accounts', 'import', '--from', rowsFile('c.ndjson', rowsOf(prefix)), '--key', 'customernum', '--results', results, '--concurrency', String(concurrency)];
      const r = await run(argv, { env: { SVC_URL: proxy.instanceUrl() } });
      const why = `${REPLAY}; creates cut: ${[...cut].join(', ')}\n${r.stderr}`;
      expect(r.code, why).toBe(0);
      expect(proxy.cut, why).toBe(cut.size);
      const counts = countByKey(sandbox(), prefix);
      expect(counts.size, why).toBe(ROWS);
      expect([...counts.values()].every((n) => n === 1), why).toBe(true);
      const lines = readResults(results);
      expect(lines.map((l) => l.line), why).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
      expect(lines.filter((l) => l.action === 'create' && l.status === null).length, why).toBe(cut.size);
    });

    it(`without --key: a lost answer is unknown, in the results and the summary; --resume never sends it again (concurrency ${concurrency})`, async () => {
      const random = createRandom(SEED + 100 + ci);
      const prefix = `CUTN${concurrency}-`;
      const at = random.int(1, ROWS);
      proxy.cutCreates(new Set([at]));
      const results = join(tempDir(), 'r.ndjson');
      const file = rowsFile('c.ndjson', rowsOf(prefix));
      const argv = ['accounts', 'import', '--from', file, '--results', results, '--concurrency', String(concurrency)];
      const r = await run(argv, { env: { SVC_URL: proxy.instanceUrl() } });
      const why = `${REPLAY}; create cut: ${at}\n${r.stderr}`;
      expect(r.code, why).toBe(1);
      expect(r.stderr, why).toMatch(/: 29 created, 0 updated, 0 unchanged, 0 failed, 1 unknown\nsvc: 1 of 30 rows has an unknown outcome \(see .*\); check whether the unknown ones were created \(or import with --key, so that svc can\)\n$/);
      const unknown = readResults(results).filter((l) => l.action === 'unknown');
      expect(unknown.length, why).toBe(1);
      expect(unknown[0]?.error, why).toMatch(/whether the record was created is unknown \(import with --key to let svc check\)$/);
      expect(existsSync(`${results}.svc-state.json`), why).toBe(true);
      const resumed = await run([...argv, '--resume']);
      expect(resumed.code, `${why}\n${resumed.stderr}`).toBe(1);
      expect(resumed.stderr, why).toMatch(/: 0 created, 0 updated, 0 unchanged, 0 failed, 1 unknown, 29 done before \(--resume\)\n/);
      const counts = countByKey(sandbox(), prefix);
      expect(counts.size, why).toBe(ROWS);
      expect([...counts.values()].every((n) => n === 1), why).toBe(true);
      expect(readResults(results).length, why).toBe(ROWS);
    });
  }

  it('--resume retries the rows that failed, skips the done ones, and leaves one line per row', async () => {
    const s = sandbox();
    const ids = [1, 2, 3].map((i) => insertAccount(s, { lastname: `ResumeUpd${i}` }));
    const file = rowsFile('u.ndjson', ids.map((id, i) => JSON.stringify({ ID: id, firstname: `F${i}` })).join('\n') + '\n');
    const results = join(tempDir(), 'r.ndjson');
    s.sandbox.hooks.failNext({ method: 'PATCH', path: `/accounts/${ids[1]}`, fault: { status: 500, body: 'boom' } });
    const r1 = await run(['accounts', 'import', '--from', file, '--results', results]);
    expect(r1.code).toBe(1);
    expect(readResults(results).map((l) => [l.line, l.status])).toEqual([
      [1, 200],
      [2, 500],
      [3, 200],
    ]);
    s.sandbox.hooks.reset();
    s.sandbox.hooks.record = true;
    const r2 = await run(['accounts', 'import', '--from', file, '--results', results, '--resume']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).toMatch(/: 0 created, 1 updated, 0 unchanged, 0 failed, 2 done before \(--resume\)\n$/);
    expect(s.sandbox.hooks.requests.filter((q) => q.method === 'PATCH').map((q) => q.url)).toEqual([`/demo/api/v1/accounts/${ids[1]}`]);
    expect(readResults(results).map((l) => [l.line, l.action, l.status])).toEqual([
      [1, 'update', 200],
      [2, 'update', 200],
      [3, 'update', 200],
    ]);
    expect(existsSync(`${results}.svc-state.json`)).toBe(false);
    writeFileSync(file, readFileSync(file, 'utf8').replace('F0', 'G0'));
    const other = await run(['accounts', 'import', '--from', file, '--results', results, '--resume']);
    // The import finished: --resume with no unfinished import starts afresh (as an export does).
    expect(other.code, other.stderr).toBe(0);
  });

  it('refuses to resume an import of another file', async () => {
    const results = join(tempDir(), 'r.ndjson');
    sandbox().sandbox.hooks.failNext({ method: 'PUT', path: '/api/v1/accounts', fault: { status: 400, body: 'no' } });
    const first = await run(['accounts', 'import', '--from', rowsFile('a.csv', 'lastname,currency\nOtherA,EUR\n'), '--results', results]);
    expect(first.code).toBe(1);
    const r = await run(['accounts', 'import', '--from', rowsFile('b.csv', 'lastname,currency\nOtherB,EUR\n'), '--results', results, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/records an import of another file \(.*a\.csv\); resume it with the same family, --from and --key, or remove .* to start afresh\n$/);
  });

  it('stops at Ctrl-C: starts no more rows, lets those in flight finish, exit 130; --resume creates the rest once', async () => {
    const s = sandbox();
    const processes = signallable();
    const prefix = 'SIGINT-';
    let puts = 0;
    s.sandbox.hooks.onArrival = (method) => {
      if (method === 'PUT' && ++puts === 7) processes.send('SIGINT');
    };
    const results = join(tempDir(), 'r.ndjson');
    const file = rowsFile('c.ndjson', rowsOf(prefix));
    const argv = ['accounts', 'import', '--from', file, '--key', 'customernum', '--results', results, '--concurrency', '3'];
    const r = await run(argv, { processes });
    s.sandbox.hooks.onArrival = undefined;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('svc: SIGINT: starting no more rows; waiting up to 5 s for those in flight (SVC_BULK_GRACE)\n');
    expect(r.stderr).toMatch(/svc: interrupted by SIGINT: \d+ rows not started; run it again with --resume to continue\n$/);
    const done = readResults(results);
    expect(done.every((l) => l.action === 'create' && l.status === 201)).toBe(true);
    expect(done.length).toBeGreaterThanOrEqual(7);
    expect(done.length).toBeLessThan(ROWS);
    const resumed = await run([...argv, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const counts = countByKey(s, prefix);
    expect(counts.size).toBe(ROWS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });

  it('cuts off a create still in flight when the grace period after SIGTERM ends: unknown, never sent again', async () => {
    const s = sandbox();
    const processes = signallable();
    const prefix = 'GRACE-';
    let puts = 0;
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'PUT' || ++puts !== 4) return;
      // The 4th create hangs unanswered, and SIGTERM comes while svc waits for it.
      s.sandbox.hooks.failNext({ method, path: url, fault: { delayMs: 60_000 } });
      processes.send('SIGTERM');
    };
    const results = join(tempDir(), 'r.ndjson');
    const argv = ['accounts', 'import', '--from', rowsFile('c.ndjson', rowsOf(prefix)), '--results', results];
    const r = await run(argv, { processes, env: { SVC_BULK_GRACE: '100ms' } });
    s.sandbox.hooks.onArrival = undefined;
    expect(r.code, r.stderr).toBe(130);
    expect(readResults(results).map((l) => [l.line, l.action])).toEqual([
      [1, 'create'],
      [2, 'create'],
      [3, 'create'],
      [4, 'unknown'],
    ]);
    expect(readResults(results)[3]?.error).toBe('interrupted by SIGTERM before the answer came; whether the record was created is unknown (import with --key to let svc check)');
    const resumed = await run([...argv, '--resume']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(/: 26 created, 0 updated, 0 unchanged, 0 failed, 1 unknown, 3 done before \(--resume\)\n/);
    expect(countByKey(s, prefix).size).toBe(ROWS - 1);
  });

  for (const [ci, concurrency] of [1, 4].entries()) {
    it(`on a sandbox failing 20% of requests at random (503, 429, dropped connections, slow answers): --resume until done, never a duplicate (concurrency ${concurrency})`, async () => {
      const s = sandbox();
      const keyed = `FLAKYK${concurrency}-`;
      const bare = `FLAKYN${concurrency}-`;
      s.sandbox.hooks.setFaultRate(0.2, SEED + 7 + ci);
      const log: string[] = [REPLAY];
      try {
        for (const [prefix, key] of [[keyed, ['--key', 'customernum']], [bare, []]] as const) {
          const results = join(tempDir(), 'r.ndjson');
          const argv = ['accounts', 'import', '--from', rowsFile('f.ndjson', rowsOf(prefix)), '--results', results, '--concurrency', String(concurrency), ...key];
          let r = await run(argv);
          log.push(`${prefix} run 1: exit ${r.code}; ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`);
          for (let i = 2; i <= 4 && r.code === 1; i++) {
            r = await run([...argv, '--resume']);
            log.push(`${prefix} run ${i}: exit ${r.code}; ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`);
          }
          const counts = countByKey(s, prefix);
          expect([...counts.values()].every((n) => n === 1), log.join('\n')).toBe(true);
          const unknown = readResults(results).filter((l) => l.action === 'unknown').length;
          if (key.length > 0) expect(counts.size, log.join('\n')).toBe(ROWS);
          else expect(counts.size + unknown, log.join('\n')).toBeGreaterThanOrEqual(ROWS);
        }
      } finally {
        s.sandbox.hooks.setFaultRate(0);
      }
    }, 60_000);
  }
});

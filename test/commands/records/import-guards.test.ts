/**
 * What the bulk writes guard against before and while they write (after the
 * s9 attack, test/attack/s9-bulk-*): a refused permission stops the run as a
 * refused token does (but not where a 403 is one record's); --results is the
 * input by no name and is created as an export's file is; a results file cut
 * short by a full disk is never taken as whole; svc's own TSV reads back; a
 * file whose lines end in CR alone, or whose columns another delimiter splits,
 * is named; a number beyond a double is named as written.
 */
import { closeSync, linkSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFamily } from '../../../src/catalogue/index.js';
import { refusedToken } from '../../../src/commands/records/write-bulk.js';
import { AuthError } from '../../../src/errors.js';
import { openResults, readResults as readLines } from '../../../src/import/results.js';
import { writeWhole } from '../../../src/util/atomic-file.js';
import { sandboxCli } from '../../helpers/cli.js';
import { accountsNamed, insertAccount, readResults, rowsFile, tempDir } from './import-support.js';

const { sandbox, run } = sandboxCli();
const writes = (): number => sandbox().sandbox.hooks.requests.filter((q) => q.method === 'PUT' || q.method === 'PATCH' || q.method === 'DELETE').length;

describe('a refused permission (403)', () => {
  it('stops an import at its first row, with the summary, the line in --results and exit 4', async () => {
    const results = join(tempDir(), 'r.ndjson');
    const f = rowsFile('rows.csv', `lastname,currency\n${Array.from({ length: 5 }, (_, i) => `GuardPerm${i},EUR`).join('\n')}\n`);
    const r = await run(['accounts', 'import', '--from', f, '--results', results], { user: 'reader' });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(
      /: 0 created, 0 updated, 0 unchanged, 1 failed\nsvc: the service refused permission \(403\) at line 2, as it would for every other one: the token's user may not write accounts; use a token of a user who may, then run again with --resume\n$/,
    );
    expect(writes()).toBe(1);
    expect(readResults(results).map((l) => [l.line, l.action, l.status])).toEqual([[2, 'create', 403]]);
  });

  it("is one record's only where the family lets a record's creator alone change it (never for a create)", () => {
    const line = (action: 'create' | 'update' | 'delete') => ({ action, id: 7, status: 403, etag: null, error: 'denied' });
    const accounts = findFamily('accounts');
    const creatorOnly = findFamily('messagereads');
    expect(creatorOnly?.permissions.write?.creatorOnly).toBe(true);
    if (!accounts || !creatorOnly) throw new Error('catalogue');
    expect(() => refusedToken(line('update'), accounts)).toThrow(AuthError);
    expect(() => refusedToken(line('delete'), creatorOnly)).not.toThrow();
    expect(() => refusedToken(line('update'), creatorOnly)).not.toThrow();
    expect(() => refusedToken(line('create'), creatorOnly)).toThrow(/403\) at record 7/);
  });
});

describe('--results', () => {
  it('is created with the mode the umask gives a new file, as an export is (not 0644 whatever the umask)', async () => {
    const dir = tempDir();
    const results = join(dir, 'r.ndjson');
    const r = await run(['accounts', 'import', '--from', rowsFile('rows.csv', 'lastname,currency\nGuardMode,EUR\n', dir), '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    const plain = join(dir, 'plain');
    writeFileSync(plain, '');
    expect(statSync(results).mode & 0o777).toBe(statSync(plain).mode & 0o777);
  });

  it('in a missing directory is refused before the records are counted, for delete --filter as well', async () => {
    insertAccount(sandbox(), { lastname: 'GuardNoDirD' });
    const dir = tempDir();
    const r = await run(['accounts', 'delete', '--filter', 'lastname = "GuardNoDirD"', '--yes', '--results', join(dir, 'none', 'r.ndjson')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: --results ${join(dir, 'none', 'r.ndjson')}: the directory ${join(dir, 'none')} does not exist; create it or choose another file\n`);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('naming the input through a hard link is refused for a dry run as well, before anything is read from the service', async () => {
    const dir = tempDir();
    const input = rowsFile('rows.csv', 'lastname,currency\nGuardSame,EUR\n', dir);
    const results = join(dir, 'r.ndjson');
    linkSync(input, results);
    const r = await run(['accounts', 'import', '--from', input, '--results', results, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: --results would overwrite the file being imported ('${input}'); name another file\n`);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});

describe('a results file on a disk that fills', () => {
  it('writeWhole reports a device that takes nothing (ENOSPC), never a short write as whole', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      expect(() => writeWhole(fd, 'x'.repeat(100_000))).toThrow(/ENOSPC/);
    } finally {
      closeSync(fd);
    }
  });

  it('a resumed run ends the cut-short line an earlier run left, so its own first line is read', () => {
    const path = join(tempDir(), 'r.ndjson');
    writeFileSync(path, '{"line":1,"action":"create","id":5,"status":201,"etag":null,"error":null}\n{"line":2,"act');
    const w = openResults(path, { append: true, now: () => 0 });
    w.sending(3);
    w.close();
    expect([...readLines(path).entries()]).toEqual([
      [1, { line: 1, action: 'create', id: 5, status: 201, etag: null, error: null }],
      [3, { line: 3, action: 'sending' }],
    ]);
    expect(readFileSync(path, 'utf8').endsWith('"act\n{"line":3,"action":"sending"}\n')).toBe(true);
  });
});

describe('import reads files as other programs write them', () => {
  it("reads svc's own -o tsv back, tabs, line breaks, backslashes and quotes in values included (all unchanged)", async () => {
    const tricky = ['tab\there', 'two\nlines', 'back\\slash \\t not a tab', '"quoted", with a comma'];
    tricky.forEach((description, i) => insertAccount(sandbox(), { lastname: `GuardTsv${i}`, customernum: `GUARD-TSV-${i}`, description }));
    const out = await run(['accounts', 'query', '--filter', 'customernum ~ "^GUARD-TSV-"', '--fields', 'ID,lastname,description', '-o', 'tsv']);
    expect(out.code, out.stderr).toBe(0);
    const r = await run(['accounts', 'import', '--from', rowsFile('accounts.tsv', out.stdout), '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/4 rows\): 0 creates, 0 updates, 4 unchanged/);
  });

  it('names the delimiter when the header is one column split by another (a tab in a .csv, a semicolon)', async () => {
    const tab = await run(['accounts', 'import', '--from', rowsFile('rows.csv', 'lastname\tcurrency\nA\tEUR\n')]);
    expect(tab.code).toBe(2);
    expect(tab.stderr).toMatch(/the header is one column holding tabs; for tab-separated values \(as a spreadsheet saves them, with CSV quoting\) pass --delimiter with a tab \(e\.g\. --delimiter \$'\\t'\); name the file \.tsv only if it is svc's own -o tsv\n$/);
    const semi = await run(['accounts', 'import', '--from', rowsFile('rows.csv', 'lastname;currency\nA;EUR\n')]);
    expect(semi.code).toBe(2);
    expect(semi.stderr).toMatch(/the header is one column holding ';'; for the service's own CSV pass --delimiter ';'\n$/);
    const ok = await run(['--delimiter', ';', 'accounts', 'import', '--from', rowsFile('rows.csv', 'lastname;currency\nGuardSemi;EUR\n')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(accountsNamed(sandbox(), 'GuardSemi').length).toBe(1);
  });

  it('names a CR-only file by its line ends', async () => {
    const f = rowsFile('mac.csv', 'lastname\rGuardMac\r');
    const r = await run(['accounts', 'import', '--from', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: ${f}: its lines end in a carriage return alone (CR, as classic Mac programs save them), so it reads as one line; save it with LF or CRLF line ends\n`);
  });

  it('names a number beyond a double by its field and as written, nested too; the same text in a string is only text', async () => {
    const nested = await run(['accounts', 'import', '--from', rowsFile('rows.ndjson', '{"lastname":"1e400 club","currency":"EUR","extdata":{"big":-2.5E+999}}\n')]);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toMatch(/line 1: extdata\.big: -2\.5E\+999 is out of range: it is beyond what a number can hold \(about ±1\.8e308\)\n/);
    const text = await run(['accounts', 'import', '--from', rowsFile('rows.ndjson', '{"lastname":"GuardBig 1e400","currency":"EUR"}\n')]);
    expect(text.code, text.stderr).toBe(0);
    expect(accountsNamed(sandbox(), 'GuardBig 1e400').length).toBe(1);
  });
});

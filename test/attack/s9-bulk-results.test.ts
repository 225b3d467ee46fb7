/**
 * s9 attack on where the bulk writes put `--results FILE`.
 *
 * Findings (FAILS until fixed):
 * - svc refuses `--results` naming the file being imported ("--results would
 *   overwrite the file being imported"), but compares the two paths as
 *   written: the same file through a linked directory, or a hard link to it,
 *   passes, and the input file is replaced by the results;
 * - a `--results` file in a directory that does not exist: import says
 *   "cannot write to DIR/x.ndjson.svc-lock: no such file or directory
 *   (ENOENT)", naming a file the user never gave, with no fix, exit 1 (and
 *   update --filter counts the records first, then the same, exit 1), where
 *   `export --output` says "the directory … does not exist; create it or
 *   choose another file", exit 2, before anything is read.
 *
 * In-process svc against the test's sandbox.
 */
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { accountsNamed, insertAccount, tempDir } from '../commands/records/import-support.js';

const { sandbox, run } = sandboxCli();
const writes = (): number => sandbox().sandbox.hooks.requests.filter((q) => q.method === 'PUT' || q.method === 'PATCH' || q.method === 'DELETE').length;

describe('--results naming the input file by another path', () => {
  it.each(['a linked directory', 'a hard link'])('FAILS: the same file through %s is refused; the input is left as it was', async (how) => {
    const dir = tempDir();
    mkdirSync(join(dir, 'data'));
    const input = join(dir, 'data', 'rows.csv');
    const text = `lastname,currency\nS9Same${how.length},EUR\n`;
    writeFileSync(input, text);
    let results: string;
    if (how === 'a linked directory') {
      symlinkSync(join(dir, 'data'), join(dir, 'link'));
      results = join(dir, 'link', 'rows.csv');
    } else {
      results = join(dir, 'data', 'results.ndjson');
      linkSync(input, results);
    }
    const r = await run(['accounts', 'import', '--from', input, '--results', results]);
    const what = `exit ${r.code}: ${JSON.stringify(r.stderr)}; input now ${JSON.stringify(readFileSync(input, 'utf8').slice(0, 200))}`;
    // Today: exit 0, one record created, and rows.csv holds the results line instead of the rows.
    expect(readFileSync(input, 'utf8'), what).toBe(text);
    expect(r.code, what).toBe(2);
    expect(r.stderr, what).toMatch(/would overwrite the file being imported/);
    expect(writes()).toBe(0);
  });
});

describe('--results in a directory that does not exist', () => {
  it('FAILS: import: exit 2 naming the directory (as export --output does), nothing sent', async () => {
    const dir = tempDir();
    const input = join(dir, 'rows.csv');
    writeFileSync(input, 'lastname,currency\nS9NoDir,EUR\n');
    const results = join(dir, 'missing', 'results.ndjson');
    const r = await run(['accounts', 'import', '--from', input, '--results', results]);
    const what = `exit ${r.code}: ${JSON.stringify(r.stderr)}`;
    // Today: exit 1, "svc: cannot write to …/missing/results.ndjson.svc-lock: no such file or directory (ENOENT)".
    expect(r.code, what).toBe(2);
    expect(r.stderr, what).not.toMatch(/svc-lock/);
    expect(r.stderr, what).toMatch(new RegExp(`${join(dir, 'missing').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.* does not exist`));
    expect(writes()).toBe(0);
    expect(accountsNamed(sandbox(), 'S9NoDir')).toEqual([]);
  });

  it('FAILS: update --filter: exit 2 naming the directory, before the records are counted', async () => {
    insertAccount(sandbox(), { lastname: 'S9NoDirU' });
    const dir = tempDir();
    const results = join(dir, 'missing', 'results.ndjson');
    const r = await run(['accounts', 'update', '--filter', 'lastname = "S9NoDirU"', 'visibility=1', '--yes', '--results', results]);
    const what = `exit ${r.code}: ${JSON.stringify(r.stderr)}`;
    // Today: "1 accounts record matches the filter", then "cannot write to …: no such file or directory (ENOENT)", exit 1.
    expect(r.code, what).toBe(2);
    expect(r.stderr, what).toMatch(/does not exist/);
    expect(writes()).toBe(0);
  });

  it('passes: update --filter and delete --filter refuse a results path that is a symbolic link, writing nothing', async () => {
    insertAccount(sandbox(), { lastname: 'S9LinkRes' });
    const dir = tempDir();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep\n');
    symlinkSync(victim, join(dir, 'res.ndjson'));
    for (const args of [
      ['accounts', 'update', '--filter', 'lastname = "S9LinkRes"', 'visibility=1'],
      ['accounts', 'delete', '--filter', 'lastname = "S9LinkRes"'],
    ]) {
      const r = await run([...args, '--yes', '--results', join(dir, 'res.ndjson')]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/is a symbolic link/);
    }
    expect(readFileSync(victim, 'utf8')).toBe('keep\n');
    expect(writes()).toBe(0);
  });
});

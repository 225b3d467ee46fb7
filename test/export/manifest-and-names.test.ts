/**
 * Export column names and the manifest, against a real sandbox: --fields
 * names with a control character (every format) or differing only in case
 * (Parquet) are refused before anything is sent; the manifest takes the
 * export's permissions, is never left describing another file, and a
 * manifest that cannot be written is reported as what it is.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXACT_INTEGERS, hasControlCharacter, integerFrom, sameIgnoringCase } from '../../src/export/column-rules.js';
import { sandboxCli } from '../helpers/cli.js';
import { sha256File, tempDir } from './support.js';

const { sandbox, run } = sandboxCli();

const sent = (): number => sandbox().sandbox.hooks.requests.length;
const lines = (text: string): string[] => text.trimEnd().split('\n');

describe('column rules', () => {
  it('finds the first two names that are one column ignoring case, and control characters', () => {
    expect(sameIgnoringCase(['ID', 'name', 'city', 'Name', 'NAME'])).toEqual(['name', 'Name']);
    expect(sameIgnoringCase(['ID', 'a', 'a'])).toEqual(['a', 'a']);
    expect(sameIgnoringCase(['ID', 'name', 'é', 'É'])).toEqual(['é', 'É']);
    expect(sameIgnoringCase(['ID', 'a b', 'a_b'])).toBeUndefined();
    for (const c of ['\u0000', '\t', '\n', '\u001b', '\u007f', '\u009b']) expect(hasControlCharacter(`a${c}b`)).toBe(true);
    expect(hasControlCharacter('my col é日本 "x"')).toBe(false);
    expect(integerFrom(EXACT_INTEGERS)).toBe('an integer from -9007199254740991 to 9007199254740991');
  });
});

describe('--fields names', () => {
  it.each(['csv', 'ndjson', 'json', 'parquet'])('a control character in a name is exit 2 (%s), one line, the name shown safely, nothing sent', async (format) => {
    const file = join(tempDir(), `ctl.${format}`);
    const r = await run(['accounts', 'export', '--output', file, '--format', format, '--fields', 'ID,a\u001b[2Jb=lastname']);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual(["svc: --fields: 'a?[2Jb' holds a control character, which cannot be part of a column's name; name it with printable characters (alias=path)"]);
    expect(sent()).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('parquet: names that differ only in case are exit 2, naming both and the fix, nothing sent', async () => {
    const file = join(tempDir(), 'case.parquet');
    const r = await run(['accounts', 'export', '--output', file, '--fields', 'ID,city=contact.city,lastname,Lastname=firstname']);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([
      "svc: --fields names the columns 'lastname' and 'Lastname', which differ only in case; DuckDB and Spark take them for one column (column names ignore case): rename one (alias=path)",
    ]);
    expect(sent()).toBe(0);
    // A name given twice still says so.
    const twice = await run(['accounts', 'export', '--output', file, '--fields', 'ID,lastname,lastname']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^svc: --fields names the column 'lastname' twice/);
  });

  it('csv keeps names that differ only in case (a header is text)', async () => {
    const file = join(tempDir(), 'case.csv');
    const r = await run(['accounts', 'export', '--output', file, '--fields', 'ID,name=lastname,Name=firstname', '--filter', 'ID < 3']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('ID,name,Name');
  });
});

describe('--manifest', () => {
  it.each([[[]], [['--server-side', '--format', 'csv']]])('takes the permissions of the export (%j): 0600 kept from the file replaced, else as the new file has them', async (extra) => {
    const dir = tempDir();
    const file = join(dir, 'out.csv');
    expect((await run(['accounts', 'export', '--output', file, '--manifest', ...extra])).code).toBe(0);
    expect(statSync(`${file}.manifest.json`).mode & 0o777).toBe(statSync(file).mode & 0o666);
    chmodSync(file, 0o600);
    const r = await run(['accounts', 'export', '--output', file, '--manifest', '--filter', 'lastname = "Secret"', ...extra]);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.manifest.json`).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.manifest.json.tmp`)).toBe(false);
  });

  it.each([[[]], [['--server-side', '--format', 'csv']]])('that cannot be written (%j): exit 1, one line saying the export is in place and its manifest is not; no stale manifest, partial or checkpoint', async (extra) => {
    const dir = tempDir();
    const file = join(dir, 'out.csv');
    expect((await run(['accounts', 'export', '--output', file, '--manifest', '--fields', 'ID', ...extra])).code).toBe(0);
    mkdirSync(`${file}.manifest.json.tmp`);
    const r = await run(['accounts', 'export', '--output', file, '--manifest', '--fields', 'ID,lastname', ...extra]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^svc: ${file.replace(/[.]/g, '\\.')} is in place \\([\\d,]+ rows\\), but not its manifest: cannot write to .*manifest\\.json\\.tmp: illegal operation on a directory \\(EISDIR\\); ` +
          'the previous manifest was removed, as it described the file replaced; no partial file or checkpoint is kept: run the export again for a manifest once that is fixed\n$',
      ),
    );
    expect(readFileSync(file, 'utf8').split(/\r?\n/)[0]).toMatch(/^ID[,;]lastname$/);
    expect(existsSync(`${file}.manifest.json`)).toBe(false);
    expect(existsSync(`${file}.svc-partial`)).toBe(false);
    expect(existsSync(`${file}.svc-checkpoint.json`)).toBe(false);
    // Once the way is free, the next run writes one that describes the file.
    rmSync(`${file}.manifest.json.tmp`, { recursive: true });
    expect((await run(['accounts', 'export', '--output', file, '--manifest', '--fields', 'ID,lastname', ...extra])).code).toBe(0);
    expect(JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8'))).toMatchObject({ sha256: sha256File(file) });
  });

  it('with no previous manifest says none is beside the file', async () => {
    const file = join(tempDir(), 'new.parquet');
    mkdirSync(`${file}.manifest.json.tmp`);
    const r = await run(['accounts', 'export', '--output', file, '--manifest']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is in place \([\d,]+ rows\), but not its manifest: .*; no manifest is beside it; no partial file or checkpoint is kept/);
    expect(existsSync(file)).toBe(true);
  });
});

/**
 * Export column names and the manifest, against a real sandbox: --fields
 * names with a control character (every format) or differing only in case
 * (Parquet) are refused before anything is sent; the manifest takes the
 * export's permissions, is never left describing another file, and a
 * manifest that cannot be written is reported as what it is.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXACT_INTEGERS, hasControlCharacter, integerFrom, sameIgnoringCase } from '../../src/export/column-rules.js';
import { sandboxCli } from '../helpers/cli.js';
import { seedTrickyAccounts, sha256File, tempDir } from './support.js';

const { sandbox, run } = sandboxCli();

const sent = (): number => sandbox().sandbox.hooks.requests.length;
const lines = (text: string): string[] => text.trimEnd().split('\n');
const manifestOf = (file: string): { sha256: string } => JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8')) as { sha256: string };

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

describe('a manifest never outlives the content it describes', () => {
  it.each([[[]], [['--server-side', '--format', 'csv']]])('an export without --manifest that replaces the file removes the old FILE.manifest.json (%j)', async (extra) => {
    const dir = tempDir();
    const file = join(dir, 'out.csv');
    expect((await run(['accounts', 'export', '--output', file, '--manifest', '--filter', 'ID < 3', ...extra])).code).toBe(0);
    expect(existsSync(`${file}.manifest.json`)).toBe(true);
    const r = await run(['accounts', 'export', '--output', file, ...extra]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['out.csv']);
  });

  it('--output through a link: the manifest goes beside the link, and the one beside the file it points to (now replaced) goes', async () => {
    const dir = tempDir();
    const real = join(dir, 'real.csv');
    const link = join(dir, 'latest.csv');
    symlinkSync(real, link);
    expect((await run(['accounts', 'export', '--output', real, '--manifest', '--filter', 'ID < 3'])).code).toBe(0);
    const r = await run(['accounts', 'export', '--output', link, '--manifest']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['latest.csv', 'latest.csv.manifest.json', 'real.csv']);
    expect(manifestOf(link).sha256).toBe(sha256File(real));
    // Without --manifest, through the link: neither manifest stays.
    expect((await run(['accounts', 'export', '--output', real, '--manifest', '--filter', 'ID < 3'])).code).toBe(0);
    expect((await run(['accounts', 'export', '--output', link, '--filter', 'ID < 5'])).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['latest.csv', 'real.csv']);
  });
});

describe('--resume over a checkpoint whose partial file is gone (killed between the rename and the checkpoint\'s removal)', () => {
  /** A run whose third page fails with a 400 (not retried): exit 1, a checkpoint and partial file kept. */
  async function failedRun(args: string[]): Promise<void> {
    let asked = 0;
    const hooks = sandbox().sandbox.hooks;
    hooks.onArrival = (method, url) => {
      if (method === 'POST' && url.endsWith('/api/v1/accounts') && ++asked === 3) hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 400, body: 'no' } });
    };
    try {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(1);
    } finally {
      hooks.onArrival = undefined;
    }
  }

  it('this very export: starts afresh over the same range with a note (none with --quiet), and converges: file, manifest, nothing else', async () => {
    const dir = tempDir();
    const file = join(dir, 'out.csv');
    const clean = join(tempDir(), 'clean.csv');
    expect((await run(['accounts', 'export', '--output', clean, '--page-size', '2'])).code).toBe(0);
    const args = ['accounts', 'export', '--output', file, '--manifest', '--page-size', '2'];
    for (const quiet of [false, true]) {
      await failedRun(args);
      expect(existsSync(`${file}.svc-checkpoint.json`)).toBe(true);
      // As a kill after the rename leaves it: the file in place, no partial file, the checkpoint.
      renameSync(`${file}.svc-partial`, file);
      const r = await run([...args, '--resume', ...(quiet ? ['--quiet'] : [])]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(quiet ? '' : `svc: ${file}.svc-partial is gone (its export was put in place, or it was removed); starting afresh, as without --resume\n`);
      expect(readFileSync(file).equals(readFileSync(clean))).toBe(true);
      expect(manifestOf(file).sha256).toBe(sha256File(clean));
      expect(readdirSync(dir).sort()).toEqual(['out.csv', 'out.csv.manifest.json']);
    }
  });

  it('a different export\'s checkpoint is still refused (exit 2), and a partial file that is there but short too', async () => {
    const dir = tempDir();
    const file = join(dir, 'out.csv');
    await failedRun(['accounts', 'export', '--output', file, '--page-size', '2', '--filter', 'ID > 1']);
    rmSync(`${file}.svc-partial`, { force: true });
    const other = await run(['accounts', 'export', '--output', file, '--page-size', '2', '--resume']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/belongs to a different export/);
    expect(existsSync(`${file}.svc-checkpoint.json`)).toBe(true);
    await failedRun(['accounts', 'export', '--output', file, '--page-size', '2']);
    writeFileSync(`${file}.svc-partial`, '');
    const short = await run(['accounts', 'export', '--output', file, '--page-size', '2', '--resume']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/is missing or shorter than its checkpoint says/);
  });

  it('a shard keeps the ID range of its checkpoint (fixed when its job array started), though more records came since', async () => {
    const dir = tempDir();
    const file = join(dir, 'part-1.csv');
    const args = ['accounts', 'export', '--output', file, '--page-size', '2', '--shard', '1/2', '--fields', 'ID'];
    await failedRun(args);
    const ck = JSON.parse(readFileSync(`${file}.svc-checkpoint.json`, 'utf8')) as { range: { after: number; upTo: number } };
    rmSync(`${file}.svc-partial`, { force: true });
    seedTrickyAccounts(sandbox(), 40);
    const r = await run([...args, '--resume', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const range = await run(['accounts', 'export', '--fields', 'ID', '--format', 'csv', '--filter', `ID > ${ck.range.after} and ID <= ${ck.range.upTo}`]);
    expect(range.code, range.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(range.stdout);
    expect(range.stdout.split('\n').length).toBeGreaterThan(3);
  });
});

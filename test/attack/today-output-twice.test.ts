/**
 * Attack on 6e09860 (-o/--output given twice with different values is exit
 * 2): legitimate repeats are not refused (the same value twice, in the
 * root's and the command's position, spelled differently; completions, help,
 * svc api), and every spelling of a clash is caught before anything is sent
 * or written (-ocsv, --output=x, a cluster -vo, export's file and format).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, svc } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();
const offline = (argv: string[]) => svc(argv, { env: { NO_COLOR: '1' } });
const TWICE = /^svc: -o\/--output given twice \('[^']+' and '[^']+'\); give it once/;

const sent = (): number => sandbox().sandbox.hooks.requests.filter((r) => r.url.includes('/api/v1/')).length;

describe('attack today: -o given twice, legitimately', () => {
  it.each([
    [['-o', 'json'], ['-o', 'json']],
    [['-ojson'], ['--output=json']],
    [['--output', 'json'], ['-ojson']],
    [['-vojson'], ['-o', 'json']],
  ])('the same format twice (%j … %j) around the command words: the output of one -o json', async (before, after) => {
    const once = await run(['-o', 'json', 'accounts', 'query', '--fields', 'ID,lastname', '--limit', '3']);
    expect(once.code, once.stderr).toBe(0);
    const r = await run([...before, 'accounts', 'query', '--fields', 'ID,lastname', '--limit', '3', ...after]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(once.stdout);
  }, 20_000);

  it('completions and help take a repeated -o json as they take one', async () => {
    const script = await offline(['completion', 'bash']);
    expect(script.code).toBe(0);
    const twice = await offline(['-o', 'json', 'completion', 'bash', '-o', 'json']);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stdout).toBe(script.stdout);
    const help = await offline(['-o', 'json', 'accounts', 'query', '--help', '-o', 'json']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc accounts query/);
  });

  it('svc api with -o json twice sends its request and prints JSON', async () => {
    const r = await run(['-o', 'json', 'api', 'accounts', '-f', 'fields[]=ID', '-F', 'limit=2', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toBeTruthy();
  }, 20_000);
});

describe('attack today: every spelling of a clash is exit 2 before anything is sent or written', () => {
  it.each([
    [['-ocsv'], ['-o', 'json']],
    [['--output=tsv'], ['--output', 'json']],
    [['-vo', 'csv'], ['-ojson']],
    [['-o', 'json'], ['-vocsv']],
    [['--output', 'ndjson'], ['--output=table']],
  ])('%j … %j', async (before, after) => {
    const n = sent();
    const r = await run([...before, 'accounts', 'query', '--fields', 'ID', ...after]);
    expect(r.stderr).toMatch(TWICE);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(sent()).toBe(n);
  }, 20_000);

  it('export --output FILE -o csv: exit 2, no file, nothing sent', async () => {
    const file = join(tempDir(), 'y.dat');
    const n = sent();
    const r = await run(['accounts', 'export', '--output', file, '-o', 'csv']);
    expect(r.stderr).toMatch(TWICE);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(existsSync(file)).toBe(false);
    expect(sent()).toBe(n);
  }, 20_000);
});

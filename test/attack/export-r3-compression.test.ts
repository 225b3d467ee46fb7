/**
 * --compression against a real sandbox: hostile values (refused in one line,
 * exit 2, nothing written, nothing sent), every way of asking for parquet
 * (--format parquet, a .parquet file, a pipe to stdout, --shard N/M and auto/N,
 * --manifest), and GZIP determinism: the same bytes at concurrency 1 and 4
 * and whatever the page size, to a file or a pipe. Seeded; the seed is in
 * the failure messages. The pipe case needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import { seedTrickyAccounts, tempDir } from '../export/support.js';

const SEED = process.env.SVC_R3_SEED ? Number(process.env.SVC_R3_SEED) : Math.floor(Math.random() * 2 ** 31);
const WHY = `seed ${SEED} (replay: SVC_R3_SEED=${SEED} npx vitest run test/attack/export-r3-compression.test.ts)`;
const { sandbox, run } = sandboxCli();
let db: DuckDBConnection;

beforeAll(async () => {
  seedTrickyAccounts(sandbox(), 700);
  db = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => db?.closeSync());

const sql = (p: string): string => `'${p.replace(/'/g, "''")}'`;
const codecs = async (file: string): Promise<string[]> =>
  ((await db.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata(${sql(file)})`)).getRowObjectsJson() as { compression: string }[]).map((r) => r.compression);

describe('--compression: hostile values', () => {
  const hostile: [string, string][] = [
    ['empty', ''],
    ['whitespace', '   '],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['toString', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
    ['10 KB', 'g'.repeat(10 * 1024)],
    ['escape sequences', '\u001b]0;owned\u0007gzip\u001b[2J\r\n'],
    ['a NUL', 'gzip\u0000'],
    ['a lone surrogate at the cut', `${'x'.repeat(39)}\ud83d\ude00`],
    ['RTL override', '\u202egzip'],
    ['zstd', 'zstd'],
    ['snappy', 'SNAPPY'],
    ['gzip with a level', 'gzip:9'],
    ['UNCOMPRESSED (the codec name, not the flag value)', 'UNCOMPRESSED'],
  ];
  it.each(hostile)('%s: exit 2, one line, nothing on stdout, no file and no request', async (_name, value) => {
    const file = join(tempDir(), 'x.parquet');
    sandbox().sandbox.hooks.requests.length = 0;
    const r = await run(['accounts', 'export', '--output', file, '--compression', value]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    // An empty value is refused as every empty option value is (src/commands/records/option-values.ts).
    expect(r.stderr).toMatch(value === '' ? /^svc: --compression is given an empty value/ : /^svc: --compression takes gzip or none, not '/);
    // Nothing that a terminal would act on, and not the whole 10 KB.
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stderr.length).toBeLessThan(200);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(join(file, '..'))).toEqual([]);
    expect(sandbox().sandbox.hooks.requests.filter((q) => q.url.includes('/api/v1/'))).toEqual([]);
  });

  it.each([[' GZIP '], ['Gzip'], ['\tnone\n'], ['NONE']])('%j is taken (case and surrounding space do not matter)', async (value) => {
    const file = join(tempDir(), 'ok.parquet');
    const r = await run(['accounts', 'export', '--output', file, '--compression', value]);
    expect(r.code, r.stderr).toBe(0);
    expect(await codecs(file)).toEqual([value.trim().toLowerCase() === 'none' ? 'UNCOMPRESSED' : 'GZIP']);
  });

  it.each([['csv'], ['ndjson'], ['json']])('with --format %s (and with -o, and a file of that extension): exit 2 naming the fix, even for a valid value', async (format) => {
    for (const args of [['--format', format], ['-o', format], ['--output', join(tempDir(), `a.${format}`)]]) {
      const r = await run(['accounts', 'export', ...args, '--compression', 'none']);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`--compression is for parquet pages; compress ${format} as it streams`);
    }
  });

  it('-o parquet is not an output format (the global -o takes table, json, ndjson, csv, tsv): exit 2 naming --format parquet, even with --compression', async () => {
    const r = await run(['accounts', 'export', '-o', 'parquet', '--output-file', join(tempDir(), 'x.out'), '--compression', 'gzip']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("svc: unknown output format 'parquet' (choose table, json, ndjson, csv, tsv); for a Parquet file: svc <family> export --format parquet --output FILE.parquet\n");
  });

  it('with --server-side (csv only): refused, exit 2', async () => {
    const r = await run(['accounts', 'export', '--server-side', '--format', 'csv', '--compression', 'gzip']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('--compression gzip: the same bytes however the run fetched them', () => {
  it('at concurrency 1..8 and any page size (seeded), to --format parquet --output-file f.out, to a .parquet file: one file, byte for byte; none reads the same rows', async () => {
    const random = createRandom(SEED);
    const dir = tempDir();
    const base = join(dir, 'base.parquet');
    const env = { SVC_PARQUET_ROW_GROUP: '64' };
    expect((await run(['accounts', 'export', '--output', base], { env })).code).toBe(0);
    const reference = readFileSync(base);
    expect(await codecs(base), WHY).toEqual(['GZIP']);
    for (let trial = 0; trial < 4; trial++) {
      const concurrency = random.int(1, 8);
      const pageSize = random.int(7, 300);
      const f = join(dir, `t${trial}.out`);
      const args = ['accounts', 'export', '--format', 'parquet', '--output-file', f, '--concurrency', String(concurrency), '--page-size', String(pageSize), ...(random.chance(0.5) ? ['--compression', 'GZIP'] : [])];
      const r = await run(args, { env });
      expect(r.code, `${WHY}: ${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(readFileSync(f).equals(reference), `${WHY}: ${args.join(' ')} wrote other bytes`).toBe(true);
    }
    const none = join(dir, 'none.parquet');
    expect((await run(['accounts', 'export', '--output', none, '--compression', 'none', '--concurrency', '3'], { env })).code).toBe(0);
    const rows = async (f: string): Promise<string> => JSON.stringify((await db.runAndReadAll(`SELECT * FROM read_parquet(${sql(f)}) ORDER BY ID`)).getRowsJson());
    expect(await rows(none)).toBe(await rows(base));
  });

  it('shards (N/M and auto/N) read as one dataset equal the whole, every shard GZIP; a manifest names the file and its true sha256', async () => {
    const dir = tempDir();
    const whole = join(dir, 'whole.parquet');
    expect((await run(['accounts', 'export', '--output', whole])).code).toBe(0);
    const shards: string[] = [];
    for (let k = 1; k <= 3; k++) {
      const f = join(dir, `s${k}.parquet`);
      const args = k === 2 ? ['--shard', 'auto/3'] : ['--shard', `${k}/3`];
      const r = await run(['accounts', 'export', '--output', f, '--manifest', '--concurrency', '2', ...args], { env: k === 2 ? { JOB_COMPLETION_INDEX: '1' } : {} });
      expect(r.code, r.stderr).toBe(0);
      expect(await codecs(f)).toEqual(['GZIP']);
      shards.push(f);
      const manifests = readdirSync(dir).filter((n) => n.startsWith(`s${k}.parquet`) && n !== `s${k}.parquet`);
      expect(manifests.length, `a manifest beside s${k}.parquet: ${readdirSync(dir).join(', ')}`).toBe(1);
      const manifest = JSON.parse(readFileSync(join(dir, manifests[0] as string), 'utf8')) as { sha256: string; bytes: number; format: string };
      const { createHash } = await import('node:crypto');
      expect(manifest.sha256).toBe(createHash('sha256').update(readFileSync(f)).digest('hex'));
      expect(manifest.bytes).toBe(readFileSync(f).length);
      expect(manifest.format).toBe('parquet');
    }
    const all = async (from: string): Promise<string> => JSON.stringify((await db.runAndReadAll(`SELECT * FROM read_parquet(${from}) ORDER BY ID`)).getRowsJson());
    expect(await all(`[${shards.map(sql).join(', ')}]`)).toBe(await all(sql(whole)));
  });

  it('piped to stdout (the built svc): the same bytes as to a file, GZIP and none', async () => {
    const s = sandbox();
    for (const extra of [[], ['--compression', 'none']]) {
      const file = join(tempDir(), 'f.parquet');
      expect((await run(['accounts', 'export', '--output', file, '--concurrency', '2', ...extra])).code).toBe(0);
      const env = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
      const child = spawn(process.execPath, ['bin/svc.js', 'accounts', 'export', '--format', 'parquet', '--concurrency', '4', ...extra], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
      expect(code, stderr).toBe(0);
      expect(Buffer.concat(out).equals(readFileSync(file)), `${extra.join(' ') || 'gzip'}: the pipe's bytes`).toBe(true);
    }
  }, 20_000);
});

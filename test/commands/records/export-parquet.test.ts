/**
 * `svc <family> export --format parquet` and `--shard auto/N`, against a real
 * sandbox: the file read back by DuckDB equals the CSV export of the same
 * records cell for cell (every column, unicode, quotes and line breaks, big
 * IDs, doubles), and its nulls are the service's nulls (the NDJSON export);
 * typed columns; shards read as one dataset equal the whole; hostile column
 * names, huge texts and text that is not valid UTF-16.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveShard } from '../../../src/export/shard-auto.js';
import { prepareInsert } from '../../../src/sandbox/data/store.js';
import { UsageError } from '../../../src/errors.js';
import { sandboxCli } from '../../helpers/cli.js';
import { parseCsv, seedTrickyAccounts, sha256File, tempDir } from '../../export/support.js';

let db: DuckDBConnection;
beforeAll(async () => {
  db = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => db?.closeSync());

const sql = (path: string): string => `'${path.replace(/'/g, "''")}'`;

/** A Parquet file (or files) as DuckDB reads it: column names and types, and the rows in ID order when there is an ID. */
async function readParquet(files: string | readonly string[], orderBy = ''): Promise<{ names: string[]; types: string[]; rows: unknown[][] }> {
  const from = typeof files === 'string' ? sql(files) : `[${files.map(sql).join(', ')}]`;
  const reader = await db.runAndReadAll(`SELECT * FROM read_parquet(${from})${orderBy ? ` ORDER BY ${orderBy}` : ''}`);
  return { names: reader.columnNames(), types: reader.columnTypes().map((t) => t.toString()), rows: reader.getRows() as unknown[][] };
}

/** A Parquet value as the CSV export writes it: integers and doubles as JavaScript prints them, flags as 0/1, null empty. */
function asCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? '1' : '0';
  return String(v);
}

/** The CSV export, the NDJSON export and the Parquet export of the same command; the Parquet rows must equal the CSV rows and hold nulls where the service sent null. */
async function compareFormats(run: ReturnType<typeof sandboxCli>['run'], args: string[], env: Record<string, string> = {}): Promise<{ names: string[]; types: string[]; rows: number; file: string }> {
  const dir = tempDir();
  const files = { csv: join(dir, 'a.csv'), ndjson: join(dir, 'a.ndjson'), parquet: join(dir, 'a.parquet') };
  for (const f of Object.values(files)) {
    const r = await run([...args, '--output', f], { env });
    expect(r.code, r.stderr).toBe(0);
  }
  const [header, ...csvRows] = parseCsv(readFileSync(files.csv, 'utf8'));
  const records = readFileSync(files.ndjson, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const pq = await readParquet(files.parquet);
  expect(pq.names).toEqual(header);
  expect(pq.rows.length).toBe(csvRows.length);
  expect(pq.rows.map((row) => row.map(asCell))).toEqual(csvRows);
  // CSV cannot tell null from '': NDJSON can.
  pq.rows.forEach((row, r) => {
    const record = records[r] as Record<string, unknown>;
    pq.names.forEach((name, c) => expect(row[c] === null, `row ${r} ${name}`).toBe(record[name] === null || record[name] === undefined));
  });
  return { names: pq.names, types: pq.types, rows: pq.rows.length, file: files.parquet };
}

describe('shard auto/N: K from the job array index', () => {
  it.each([
    [{ JOB_COMPLETION_INDEX: '0' }, 1],
    [{ JOB_COMPLETION_INDEX: '3' }, 4],
    [{ AWS_BATCH_JOB_ARRAY_INDEX: '2' }, 3],
    [{ SLURM_ARRAY_TASK_ID: '0' }, 1],
    [{ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '4' }, 4],
    [{ SLURM_ARRAY_TASK_ID: '11', SLURM_ARRAY_TASK_MIN: '10', SLURM_ARRAY_TASK_STEP: '1' }, 2],
    [{ SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '' }, 2],
    // The first one set wins, in the order the help gives.
    [{ JOB_COMPLETION_INDEX: '1', SLURM_ARRAY_TASK_ID: '3' }, 2],
  ])('%j gives shard %i of 4', (env, k) => {
    expect(resolveShard('auto/4', env)).toEqual({ index: k, count: 4 });
    expect(resolveShard(' AUTO / 4 ', env)).toEqual({ index: k, count: 4 });
  });

  it.each([
    [{}, 'none is set'],
    [{ JOB_COMPLETION_INDEX: '' }, 'none is set'],
    [{ JOB_COMPLETION_INDEX: '4' }, 'JOB_COMPLETION_INDEX is 4, outside 0 to 3; the array must have 4 tasks'],
    [{ JOB_COMPLETION_INDEX: '-1' }, "JOB_COMPLETION_INDEX is '-1', not a whole number"],
    [{ AWS_BATCH_JOB_ARRAY_INDEX: '1.5' }, "AWS_BATCH_JOB_ARRAY_INDEX is '1.5', not a whole number"],
    [{ SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_MIN: '1' }, 'SLURM_ARRAY_TASK_ID is 0, outside 1 to 4'],
    [{ SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_STEP: '2' }, 'the Slurm array steps by 2'],
    [{ SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_COUNT: '5' }, 'the Slurm array has 5 tasks (SLURM_ARRAY_TASK_COUNT), not 4'],
    [{ SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_COUNT: 'x\u001b[2J' }, "SLURM_ARRAY_TASK_COUNT is 'x?[2J', not a whole number"],
  ])('%j is a usage error naming the variable', (env, message) => {
    let thrown: unknown;
    try {
      resolveShard('auto/4', env);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toContain(message);
    if (message === 'none is set') expect((thrown as Error).message).toMatch(/JOB_COMPLETION_INDEX.*SLURM_ARRAY_TASK_ID.*AWS_BATCH_JOB_ARRAY_INDEX/);
  });

  it.each(['auto/0', 'auto/1001', 'auto/x', 'auto', '0/4'])('refuses --shard %s', (text) => {
    expect(() => resolveShard(text, { JOB_COMPLETION_INDEX: '0' })).toThrow(/--shard takes K\/N or auto\/N/);
  });
});

describe('accounts export --format parquet', () => {
  const { sandbox, run } = sandboxCli();
  const BIG = Number.MAX_SAFE_INTEGER;

  beforeAll(() => {
    const s = sandbox();
    seedTrickyAccounts(s, 250);
    // Big IDs, a huge text, a lone surrogate, and nulls in nullable columns.
    const insert = prepareInsert(s.sandbox.db, 'demo', 'accounts', ['ID', 'lastname', 'currency', 'type', 'description', 'assigneduser', 'locked']);
    insert([BIG - 1, 'Big ID', 'EUR', 1, 'near 2^53', null, 1]);
    insert([BIG, 'Biggest ID', 'USD', 2, 'x'.repeat(3 * 1024 * 1024) + ' end', null, 0]);
    insert([BIG - 2, 'Lone \ud800 surrogate', 'EUR', 1, '\udfff trailing', null, 1]);
    const items = prepareInsert(s.sandbox.db, 'demo', 'items', ['name', 'sellingprice', 'purchaseprice', 'taxrate', 'weight', 'description']);
    const prices = [0.1, 19.99, 1e-7, 123456789.125, 42.5, 0, 1 / 3, 2 ** 52 + 0.5, -0, 5e-324];
    prices.forEach((p, i) => items([`Item ${i} "quoted", ü`, p, p * 2, i % 3 ? (i % 7) / 100 + 1e-9 : null, p, i % 2 ? 'line\nbreak' : '']));
  });

  it('writes every account with typed columns, equal to the CSV export cell for cell (nulls, unicode, big IDs, huge text)', async () => {
    const { names, types, rows } = await compareFormats(run, ['accounts', 'export', '--concurrency', '3', '--page-size', '97'], { SVC_PARQUET_ROW_GROUP: '64' });
    expect(rows).toBeGreaterThan(250);
    const type = Object.fromEntries(names.map((n, i) => [n, types[i]]));
    expect(type).toMatchObject({ ID: 'BIGINT', lastmodified: 'BIGINT', creationdate: 'BIGINT', visibility: 'BIGINT', lastname: 'VARCHAR', locked: 'BOOLEAN', description: 'VARCHAR' });
  });

  it('writes doubles as DOUBLE, exactly as the service sends them, and JSON values as text', async () => {
    const { names, types } = await compareFormats(run, ['items', 'export', '--fields', 'ID,name,sellingprice,purchaseprice,taxrate,weight,description,foreigntaxrates']);
    expect(Object.fromEntries(names.map((n, i) => [n, types[i]]))).toMatchObject({ ID: 'BIGINT', sellingprice: 'DOUBLE', taxrate: 'DOUBLE', foreigntaxrates: 'VARCHAR' });
  });

  it('marks the columns the catalogue says are never null REQUIRED, the others OPTIONAL, and keeps integer statistics', async () => {
    const file = join(tempDir(), 'a.parquet');
    expect((await run(['accounts', 'export', '--fields', 'ID,lastname,assigneduser,contact.lastname', '--output', file])).code).toBe(0);
    const schema = await db.runAndReadAll(`SELECT name, repetition_type FROM parquet_schema(${sql(file)}) WHERE name <> 'schema'`);
    expect(schema.getRowObjectsJson()).toEqual([
      { name: 'ID', repetition_type: 'REQUIRED' },
      { name: 'lastname', repetition_type: 'REQUIRED' },
      { name: 'assigneduser', repetition_type: 'OPTIONAL' },
      { name: 'contact.lastname', repetition_type: 'OPTIONAL' },
    ]);
    const stats = await db.runAndReadAll(`SELECT stats_min_value, stats_max_value FROM parquet_metadata(${sql(file)}) WHERE path_in_schema = 'ID'`);
    expect(stats.getRowObjectsJson()).toEqual([{ stats_min_value: '1', stats_max_value: String(BIG) }]);
    // A filter on ID reads only what it needs, and answers right.
    const n = await db.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet(${sql(file)}) WHERE ID >= ${BIG - 2}`);
    expect(n.getRowObjectsJson()).toEqual([{ n: 3 }]);
  });

  it('takes column names that are Object.prototype members, and writes a valid empty file when nothing matches', async () => {
    const { names } = await compareFormats(run, ['accounts', 'export', '--fields', '__proto__=lastname,constructor=ID,toString=firstname,hasOwnProperty=locked']);
    expect(names).toEqual(['__proto__', 'constructor', 'toString', 'hasOwnProperty']);
    const file = join(tempDir(), 'none.parquet');
    expect((await run(['accounts', 'export', '--filter-json', '{"lastname":"no such account"}', '--fields', 'ID,lastname', '--output', file])).code).toBe(0);
    const empty = await readParquet(file);
    expect(empty).toEqual({ names: ['ID', 'lastname'], types: ['BIGINT', 'VARCHAR'], rows: [] });
  });

  it('writes the same bytes at any concurrency and page size, with the manifest naming the format', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.parquet');
    const b = join(dir, 'b.parquet');
    const env = { SVC_PARQUET_ROW_GROUP: '50' };
    expect((await run(['accounts', 'export', '--output', a, '--manifest'], { env })).code).toBe(0);
    expect((await run(['accounts', 'export', '--format', 'parquet', '--output-file', b, '--concurrency', '4', '--page-size', '33'], { env })).code).toBe(0);
    expect(sha256File(b)).toBe(sha256File(a));
    const manifest = JSON.parse(readFileSync(`${a}.manifest.json`, 'utf8')) as { format: string; sha256: string; rows: number };
    expect(manifest).toMatchObject({ format: 'parquet', compression: 'gzip', sha256: sha256File(a) });
    expect(manifest.rows).toBe((await readParquet(a)).rows.length);
  });

  it('--shard K/N and auto/N parts read as one dataset equal the whole export', async () => {
    const dir = tempDir();
    const whole = join(dir, 'whole.parquet');
    expect((await run(['accounts', 'export', '--fields', 'ID,lastname,description,locked', '--output', whole])).code).toBe(0);
    const parts: string[] = [];
    for (let k = 0; k < 3; k++) {
      const part = join(dir, `accounts-${k}.parquet`);
      const r = await run(['accounts', 'export', '--fields', 'ID,lastname,description,locked', '--shard', 'auto/3', '--output', part], { env: { JOB_COMPLETION_INDEX: String(k) } });
      expect(r.code, r.stderr).toBe(0);
      parts.push(part);
    }
    const explicit = join(dir, 'explicit-2.parquet');
    expect((await run(['accounts', 'export', '--fields', 'ID,lastname,description,locked', '--shard', '2/3', '--output', explicit])).code).toBe(0);
    expect(sha256File(explicit)).toBe(sha256File(parts[1] as string));
    const all = await readParquet(whole, 'ID');
    expect(await readParquet(parts, 'ID')).toEqual(all);
    // A glob, as in the README.
    expect((await db.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet(${sql(join(dir, 'accounts-*.parquet'))})`)).getRowObjectsJson()).toEqual([{ n: all.rows.length }]);
  });

  it('compresses pages with GZIP by default and not at all with --compression none: the same rows, the one far smaller', async () => {
    const dir = tempDir();
    const files = { gzip: join(dir, 'gzip.parquet'), none: join(dir, 'none.parquet'), given: join(dir, 'given.parquet') };
    const args = ['accounts', 'export', '--concurrency', '3', '--page-size', '70'];
    expect((await run([...args, '--output', files.gzip])).code).toBe(0);
    expect((await run([...args, '--output', files.none, '--compression', 'none'])).code).toBe(0);
    expect((await run([...args, '--output', files.given, '--compression', 'GZIP'])).code).toBe(0);
    const codecs = async (file: string): Promise<string[]> =>
      ((await db.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata(${sql(file)})`)).getRowObjectsJson() as { compression: string }[]).map((r) => r.compression);
    expect(await codecs(files.gzip)).toEqual(['GZIP']);
    expect(await codecs(files.none)).toEqual(['UNCOMPRESSED']);
    expect(readFileSync(files.given).equals(readFileSync(files.gzip))).toBe(true);
    const gz = await readParquet(files.gzip, 'ID');
    expect(gz.rows.length).toBeGreaterThan(250);
    expect(gz).toEqual(await readParquet(files.none, 'ID'));
    expect(readFileSync(files.gzip).length * 2).toBeLessThan(readFileSync(files.none).length);
  });

  it('ties a checkpoint to its --compression: a resume with the other is refused (exit 2), with the same it finishes', async () => {
    const file = join(tempDir(), 'tied.parquet');
    const args = ['accounts', 'export', '--page-size', '40', '--output', file, '--resume'];
    // The third page fails with a 400 (not retried): exit 1, a checkpoint of the row groups written (40 rows each:
    // a run that fails before its first row group keeps no checkpoint).
    const env = { SVC_PARQUET_ROW_GROUP: '40' };
    let asked = 0;
    const hooks = sandbox().sandbox.hooks;
    hooks.onArrival = (method, url) => {
      if (method === 'POST' && url.endsWith('/api/v1/accounts') && ++asked === 3) hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 400, body: 'no' } });
    };
    const failed = await run(args, { env });
    hooks.onArrival = undefined;
    expect(failed.code, failed.stderr).toBe(1);
    const other = await run([...args, '--compression', 'none'], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/belongs to a different export .*--compression none/);
    const done = await run(args, { env });
    expect(done.code, done.stderr).toBe(0);
    const clean = join(tempDir(), 'clean.parquet');
    expect((await run(['accounts', 'export', '--page-size', '40', '--output', clean], { env })).code).toBe(0);
    expect(readFileSync(file).equals(readFileSync(clean))).toBe(true);
  });

  it('refuses --compression that is not gzip or none, and --compression with another format, naming the fix (exit 2)', async () => {
    const bad = await run(['accounts', 'export', '--output', join(tempDir(), 'x.parquet'), '--compression', 'zstd\u001b[2J']);
    expect(bad).toMatchObject({ code: 2, stdout: '', stderr: "svc: --compression takes gzip or none, not 'zstd?[2J'\n" });
    const csv = await run(['accounts', 'export', '--format', 'csv', '--compression', 'gzip']);
    expect(csv).toMatchObject({ code: 2, stdout: '', stderr: 'svc: --compression is for parquet pages; compress csv as it streams: svc accounts export --format csv | gzip > accounts.csv.gz\n' });
  });

  it('refuses auto/N outside a job array (exit 2, naming the variables), a column named twice, and parquet to a terminal', async () => {
    const r = await run(['accounts', 'export', '--format', 'csv', '--shard', 'auto/4']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: --shard auto\/4 takes the shard from JOB_COMPLETION_INDEX .*SLURM_ARRAY_TASK_ID .*AWS_BATCH_JOB_ARRAY_INDEX .*none is set/);
    const twice = await run(['accounts', 'export', '--format', 'parquet', '--fields', 'ID,a=lastname,a=firstname']);
    expect(twice).toMatchObject({ code: 2, stderr: "svc: --fields names 'a' for both lastname and firstname: give each its own name (alias=path)\n" });
    const tty = await run(['accounts', 'export', '--format', 'parquet'], { tty: true });
    expect(tty).toMatchObject({ code: 2, stdout: '', stderr: 'svc: parquet is binary: write it to a file (--output FILE.parquet) or pipe it\n' });
  });
});

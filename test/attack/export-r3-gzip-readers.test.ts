/**
 * A GZIP Parquet export (the default) of hostile accounts, read by Apache
 * Arrow (parquet-wasm) and by DuckDB: a 3 MB text, many 400 KB texts (so a
 * column chunk holds several compressed data pages), incompressible random
 * text, lone surrogates, nulls, and
 * column names that are prototype keys. Both readers must agree with each
 * other and with the NDJSON export, and the GZIP file with the uncompressed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from '../export/support.js';

const { sandbox, run } = sandboxCli();
const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = createRandom(seed);

beforeAll(() => {
  const insert = prepareInsert(sandbox().sandbox.db, 'demo', 'accounts', ['lastname', 'firstname', 'currency', 'type', 'description', 'assigneduser', 'locked']);
  sandbox().sandbox.db.transaction(() => {
    insert(['Huge', '', 'EUR', 1, `${'x'.repeat(3 * 1024 * 1024)} end`, null, 0]);
    for (let i = 0; i < 12; i++) insert([`Big ${i}`, i % 2 ? '' : 'f', 'EUR', i % 6, `${String(i).repeat(400 * 1024)}`, null, i % 2]);
    // Random printable text (seeded): GZIP level 1 barely shrinks it. Between brackets: a description has no leading
    // or trailing blank (the sandbox's check, as the service's).
    for (let i = 0; i < 6; i++) insert([`Noise ${i}`, 'n', 'USD', 2, `[${Array.from({ length: 200 * 1024 }, () => String.fromCharCode(random.int(0x20, 0x7e))).join('')}]`, null, 0]);
    insert(['Lone \ud800 surrogate', '\udfff', 'EUR', 1, 'a\ud83d', null, 1]);
    for (let i = 0; i < 40; i++) insert([`n${i}`, 'x', 'EUR', 3, i % 3 ? 'd' : '', null, 1]);
  })();
});

const FIELDS = 'ID,__proto__=lastname,constructor=firstname,toString=description,hasOwnProperty=locked,valueOf=type,isPrototypeOf=assigneduser';

describe(`GZIP parquet read by Arrow and DuckDB (seed ${seed})`, () => {
  it('both readers see the NDJSON export, and the GZIP file the same rows as --compression none', async () => {
    const dir = tempDir();
    const gz = join(dir, 'gz.parquet');
    const none = join(dir, 'none.parquet');
    const nd = join(dir, 'a.ndjson');
    for (const [file, extra] of [[gz, []], [none, ['--compression', 'none']], [nd, []]] as const) {
      const r = await run(['accounts', 'export', '--fields', FIELDS, '--concurrency', '3', '--page-size', '9', '--output', file, ...extra], { env: { SVC_PARQUET_ROW_GROUP: '25' } });
      expect(r.code, r.stderr).toBe(0);
    }
    // What a Parquet (UTF-8) file can hold: the NDJSON values with lone surrogates as U+FFFD.
    const wellFormed = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd') : v);
    const expected = readFileSync(nd, 'utf8').split('\n').filter(Boolean).map((l) => {
      const rec = JSON.parse(l) as Record<string, unknown>;
      return FIELDS.split(',').map((f) => f.split('=')[0] as string).map((k) => {
        const v = Object.prototype.hasOwnProperty.call(rec, k) ? rec[k] : null;
        return typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'number' ? v : wellFormed(v ?? null);
      });
    });
    expect(expected.length).toBeGreaterThan(60);

    const norm = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : typeof v === 'boolean' ? (v ? 1 : 0) : v ?? null);
    const arrow = (file: string): unknown[][] => {
      const table = tableFromIPC(readParquet(readFileSync(file)).intoIPCStream());
      expect(table.schema.fields.map((f) => f.name)).toEqual(['ID', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']);
      const cols = table.schema.fields.map((_, c) => table.getChildAt(c));
      return Array.from({ length: table.numRows }, (_, r) => cols.map((col) => norm(col?.get(r))));
    };
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const duck = async (file: string): Promise<unknown[][]> => ((await db.runAndReadAll(`SELECT * FROM read_parquet('${file}') ORDER BY ID`)).getRows() as unknown[][]).map((row) => row.map(norm));
      const codec = async (file: string): Promise<unknown> => (await db.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`)).getRows();
      expect(await codec(gz)).toEqual([['GZIP']]);
      const a = arrow(gz);
      const d = await duck(gz);
      const cmp = (x: unknown[][]): string => JSON.stringify(x);
      expect(a.length).toBe(expected.length);
      expect(cmp(a) === cmp(expected), 'Arrow reads the NDJSON export').toBe(true);
      expect(cmp(d) === cmp(expected), 'DuckDB reads the NDJSON export').toBe(true);
      expect(cmp(arrow(none)) === cmp(a), 'the uncompressed file holds the same').toBe(true);
    } finally {
      db.closeSync();
    }
  }, 30_000);
});

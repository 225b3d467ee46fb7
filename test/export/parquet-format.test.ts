/**
 * The Parquet writer's parts without a server: records to column data (and
 * the values that cannot go into their column, refused in words), the check
 * of row-group metadata read from a checkpoint, and a
 * file written through the same code read by an Apache Arrow based reader
 * (parquet-wasm: arrow-rs compiled to WebAssembly) as well as by DuckDB.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/errors.js';
import { columnDigest } from '../../src/export/parquet/pages.js';
import { footer, isGroupMeta, MAGIC } from '../../src/export/parquet/footer.js';
import { encodeRowGroup } from '../../src/export/parquet/row-group.js';
import { gzipSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import type { ParquetColumn } from '../../src/export/plan.js';
import { createParquetWriter } from '../../src/export/parquet/writer.js';
import type { Checkpoint } from '../../src/export/checkpoint.js';
import { openFileSink } from '../../src/export/atomic-file.js';
import { tempDir } from './support.js';

const COLUMNS: ParquetColumn[] = [
  { name: 'ID', kind: 'int64', nullable: false },
  { name: 'name', kind: 'string', nullable: false },
  { name: 'price', kind: 'double', nullable: true },
  { name: 'locked', kind: 'boolean', nullable: true },
  { name: 'owner', kind: 'int64', nullable: true },
  { name: 'meta', kind: 'string', nullable: true },
  { name: 'constructor', kind: 'string', nullable: true },
];

/** The message of the SvcError a record makes the digest throw. */
function refusal(row: Record<string, unknown>): string {
  const digest = columnDigest(COLUMNS, 'ID');
  try {
    digest.add(row);
  } catch (err) {
    expect(err).toBeInstanceOf(SvcError);
    return (err as Error).message;
  }
  throw new Error('no refusal');
}

describe('records to column data', () => {
  it.each([
    [{ ID: 7, name: 'a', owner: 'x' }, 'record 7: owner is "x", not an integer from -9007199254740991 to 9007199254740991 as the catalogue says'],
    [{ ID: 7, name: 'a', owner: 1.5 }, 'record 7: owner is 1.5, not an integer'],
    // 2^60 is an integer: the message names the range INT64 takes here (the words sync uses).
    [{ ID: 7, name: 'a', owner: 2 ** 60 }, 'owner is 1152921504606847000, not an integer from -9007199254740991 to 9007199254740991'],
    [{ ID: 7, name: 'a', owner: 'a\u001b[31mred' }, 'owner is "a\\u001b[31mred", not an integer'],
    [{ ID: 7, name: 'a', owner: 'a\u202eb' }, 'owner is "a?b", not an integer'],
    [{ ID: 7, name: 'a', locked: 2 }, 'record 7: locked is 2, not 0 or 1'],
    [{ ID: 7, name: 'a', price: '1.5' }, 'record 7: price is "1.5", not a number'],
    [{ ID: 7, name: null }, 'record 7: name is null, not text'],
    [{ ID: 7 }, 'record 7: name is null'],
    [{ ID: 7, name: 'a', owner: 'y'.repeat(100) }, `owner is "${'y'.repeat(39)}…, not an integer`],
  ])('refuses %j, saying how to export it anyway', (row, message) => {
    const m = refusal(row);
    expect(m).toContain(message);
    expect(m).toMatch(/export it as csv or ndjson, or leave it out with --fields$/);
  });

  it('reads a prototype-named column only when the record has it', () => {
    const digest = columnDigest(COLUMNS, 'ID');
    digest.add({ ID: 1, name: 'a' });
    digest.add(JSON.parse('{"ID":2,"name":"b","constructor":"own","__proto__":{"x":1}}') as Record<string, unknown>);
    const page = digest.finish();
    const ctor = page.parts[6];
    expect(Array.from(ctor?.defined.subarray(0, 2) ?? [])).toEqual([0, 1]);
    expect(page.count).toBe(2);
    expect(Array.from(page.ids.subarray(0, 2))).toEqual([1, 2]);
  });
});

describe('row-group metadata in a checkpoint', () => {
  const chunk = { offset: 4, compressed: 10, uncompressed: 12, nulls: 0, pages: 1 };
  it.each([
    [{ rows: 3, columns: [chunk, { ...chunk, min: -5, max: 2 ** 53 - 1 }] }, true],
    [{ rows: 3, columns: [chunk] }, false],
    [{ rows: -1, columns: [chunk, chunk] }, false],
    [{ rows: 3, columns: [chunk, { ...chunk, offset: '4' }] }, false],
    [{ rows: 3, columns: [chunk, { ...chunk, min: 2 ** 60 }] }, false],
    [{ rows: 3, columns: [chunk, null] }, false],
    [null, false],
    [JSON.parse('{"__proto__":{"rows":3},"columns":[]}'), false],
  ])('%j is %s for two columns', (group, whole) => {
    expect(isGroupMeta(group, 2)).toBe(whole);
  });
});

/** Writes `rows` through the Parquet writer to a file, in row groups of `group`. */
async function writeFile(rows: readonly Record<string, unknown>[], group: number): Promise<string> {
  const file = join(tempDir(), 'direct.parquet');
  const signal = new AbortController().signal;
  const sink = await openFileSink(file, { signal });
  const state: Checkpoint = {
    version: 3,
    key: 'k',
    command: 'test',
    request: { family: 'accounts', filterMember: 'filters', columns: COLUMNS.map((c) => c.name), format: 'parquet', csv: { header: true, delimiter: ',', eol: '\n' }, parquet: COLUMNS },
    range: { after: 0, upTo: null, last: 0 },
    rows: 0,
    bytes: 0,
    partialSha256: '',
    startedAt: '',
    parquet: { rowGroupRows: group, rowGroupBytes: 1 << 30, rowGroups: [] },
  };
  const writer = await createParquetWriter(state, sink, 'ID');
  await writer.head();
  for (let p = 0; p < rows.length; p += 7) {
    const digest = writer.newDigest();
    const page = rows.slice(p, p + 7);
    for (const row of page) digest.add(row as Record<string, unknown>);
    await writer.page({ item: digest.finish(), count: page.length, last: Number(page.at(-1)?.ID), limit: 7 });
  }
  await writer.end();
  await sink.commit();
  return file;
}

describe('a file read by Apache Arrow (parquet-wasm) and DuckDB', () => {
  const rows = Array.from({ length: 53 }, (_, i) => ({
    ID: i === 52 ? Number.MAX_SAFE_INTEGER : i + 1,
    name: ['plain', 'Quote "inside"', 'Ümlaut Straße', '日本語 😀', 'line\nbreak', '', 'lone \ud800'][i % 7],
    price: i % 5 === 0 ? null : i / 8,
    locked: i % 3 === 0 ? null : i % 2 === 0,
    owner: i % 4 === 0 ? null : -i * 1_000_000_007,
    meta: i % 6 === 0 ? null : { tags: ['a', i], deep: { x: i } },
  }));
  const expected = rows.map((r) => ({
    ID: BigInt(r.ID),
    name: (r.name as string).replace('\ud800', '\ufffd'),
    price: r.price,
    locked: r.locked,
    owner: r.owner === null ? null : BigInt(r.owner),
    meta: r.meta === null ? null : JSON.stringify(r.meta),
    constructor: null,
  }));

  it('reads the same records through Arrow (row groups of 10, nulls, big and negative integers, unicode)', async () => {
    const file = await writeFile(rows, 10);
    const table = tableFromIPC(readParquet(readFileSync(file)).intoIPCStream());
    expect(table.schema.fields.map((f) => `${f.name}:${String(f.type)}:${f.nullable}`)).toEqual([
      'ID:Int64:false',
      'name:Utf8:false',
      'price:Float64:true',
      'locked:Bool:true',
      'owner:Int64:true',
      'meta:Utf8:true',
      'constructor:Utf8:true',
    ]);
    const got = table.toArray().map((r: { toJSON(): Record<string, unknown> }) => r.toJSON());
    expect(got).toEqual(expected);
  });

  it('reads the same records through DuckDB', async () => {
    const file = await writeFile(rows, 16);
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const reader = await db.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
      const got = reader.getRowObjects().map((r) => ({ ...r, locked: r.locked as boolean | null }));
      expect(got).toEqual(expected);
    } finally {
      db.closeSync();
    }
  });

  it('reads GZIP-compressed pages too (the codec the writer can switch to)', async () => {
    const digest = columnDigest(COLUMNS, 'ID');
    for (const row of rows) digest.add(row as Record<string, unknown>);
    const page = digest.finish();
    const { bytes, group } = await encodeRowGroup(COLUMNS, [{ page, from: 0, to: page.count }], page.count, MAGIC.length, 'GZIP', async (b) => gzipSync(b));
    const file = join(tempDir(), 'gzip.parquet');
    writeFileSync(file, Buffer.concat([MAGIC, bytes, await footer(COLUMNS, [group], 'GZIP', 'svc test')]));
    const table = tableFromIPC(readParquet(readFileSync(file)).intoIPCStream());
    expect(table.toArray().map((r: { toJSON(): Record<string, unknown> }) => r.toJSON())).toEqual(expected);
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const reader = await db.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
      expect(reader.getRowObjects()).toEqual(expected);
      const codecs = await db.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
      expect(codecs.getRowObjectsJson()).toEqual([{ compression: 'GZIP' }]);
    } finally {
      db.closeSync();
    }
  });
});

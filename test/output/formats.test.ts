/**
 * What each output format carries: CSV and TSV of one record give the service's values (not the
 * table's names and dates), a table is written line by line whatever its width, table headers are
 * one line like its cells, and JSON on a terminal escapes what would act on it, the same value.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { writeView } from '../../src/output/write.js';
import { Capture, sandboxCli } from '../helpers/cli.js';
import { parseCsv } from '../helpers/csv.js';

const { sandbox, run } = sandboxCli();

/** A pipe that keeps only what a test asks about: bytes, lines, the longest single write. */
class Counting extends Capture {
  bytes = 0;
  lines = 0;
  longestWrite = 0;
  head = '';
  override write(chunk: string | Uint8Array): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    this.bytes += text.length;
    this.longestWrite = Math.max(this.longestWrite, text.length);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lines++;
    if (this.head.length < 200) this.head += text.slice(0, 200);
    return true;
  }
}

let id = '';
beforeAll(async () => {
  const r = await sandbox().call('PUT', 'api/v1/accounts', {
    json: { lastname: 'Formats \u202eRLO', description: 'C1 \u009b31m LS \u2028 iso \u2066x\u2069 DEL \u007f', currency: 'EUR', type: 1 },
  });
  expect(r.status, r.text).toBeLessThan(300);
  id = String(r.json<{ ID: number }>().ID);
});

describe('get -o csv and -o tsv', () => {
  it('give the values -o json gives (type 1, creationdate in Unix seconds), one field a line', async () => {
    const record = JSON.parse((await run(['accounts', 'get', id, '-o', 'json'])).stdout) as Record<string, unknown>;
    const csv = await run(['accounts', 'get', id, '-o', 'csv'], { env: { TZ: 'Asia/Kathmandu' } });
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parseCsv(csv.stdout);
    expect(rows[0]).toEqual(['field', 'value']);
    const byField = Object.fromEntries(rows.slice(1).map(([k, v]) => [k, v]));
    expect(byField.type).toBe('1');
    expect(byField.creationdate).toBe(String(record.creationdate));
    expect(byField.lastname).toBe(record.lastname);
    const tsv = await run(['accounts', 'get', id, '-o', 'tsv']);
    expect(tsv.stdout).toContain(`\ncreationdate\t${String(record.creationdate)}\n`);
    expect(tsv.stdout).toContain('\ntype\t1\n');
  });

  it('a table still shows names and dates', async () => {
    const table = await run(['accounts', 'get', id, '-o', 'table']);
    expect(table.stdout).toMatch(/type:\s+CUSTOMER/);
  });
});

describe('tables', () => {
  it('a header from a --fields alias is one line with nothing that acts on the terminal', async () => {
    const r = await run(['accounts', 'query', '--filter', `ID = ${id}`, '--fields', 'ID,na\u001b[2Jme\nx=lastname'], { tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(r.stdout.split('\n')[0]).toMatch(/^ID\s+NA\[2JME X$/);
  });

  it('in a pipe, one 1 MB value among 600 records: every line whole and written on its own, never the table as one string', async () => {
    const insert = prepareInsert(sandbox().sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'description', 'creationdate', 'lastmodified']);
    sandbox().sandbox.db.transaction(() => {
      for (let i = 0; i < 600; i++) insert([`Wide table ${i}`, 'EUR', i === 0 ? 'w'.repeat(1 << 20) : `short ${i}`, 0, 0]);
    })();
    const stdout = new Counting(false);
    const r = await run(['accounts', 'query', '--all', '-o', 'table', '--fields', 'description,ID', '--filter', 'lastname ~~ "Wide table %"'], { stdout });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.lines).toBe(601);
    // No cap without a terminal (as kubectl): the description column is 1 MB wide on every line.
    expect(stdout.head).toMatch(/^DESCRIPTION {100}/);
    expect(stdout.longestWrite).toBeLessThan((1 << 20) + 100);
    expect(stdout.bytes).toBeGreaterThan(600 * (1 << 20));
  }, 30_000);

  it('writes a table through the writer line by line', async () => {
    const out = new Counting(false);
    await writeView(out, { kind: 'records', columns: [{ key: 'a' }, { key: 'b' }], rows: [{ a: 'x', b: 1 }, { a: 'yy', b: null }] }, { format: 'table', color: false });
    expect(out.lines).toBe(3);
    expect(out.longestWrite).toBe('A   B\n'.length);
  });
});

describe('JSON on a terminal', () => {
  const RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it('-o json and -o ndjson escape DEL, C1, line separators and bidi controls as \\uXXXX; the same value', async () => {
    const piped = await run(['accounts', 'get', id, '-o', 'json']);
    expect(piped.stdout).toMatch(RAW);
    for (const argv of [
      ['accounts', 'get', id, '-o', 'json'],
      ['accounts', 'get', id, '-o', 'ndjson'],
      ['accounts', 'query', '--filter', `ID = ${id}`, '-o', 'json'],
      ['accounts', 'query', '--filter', `ID = ${id}`, '-o', 'ndjson'],
    ]) {
      const r = await run(argv, { tty: true });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(RAW);
      expect(r.stdout).toContain('\\u009b31m LS \\u2028 iso \\u2066x\\u2069 DEL \\u007f');
    }
    const tty = await run(['accounts', 'get', id, '-o', 'json'], { tty: true });
    expect(JSON.parse(tty.stdout)).toEqual(JSON.parse(piped.stdout));
    // Pretty-printing keeps its line breaks.
    expect(tty.stdout.split('\n').length).toBe(piped.stdout.split('\n').length);
  });

  it('in a pipe, the bytes JSON.stringify writes', async () => {
    const r = await run(['accounts', 'query', '--filter', `ID = ${id}`, '-o', 'ndjson']);
    const record = JSON.parse(r.stdout) as unknown;
    expect(r.stdout).toBe(`${JSON.stringify(record)}\n`);
  });
});

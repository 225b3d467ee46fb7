import { describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { resolveFormat, useColor } from '../../src/output/format.js';
import { fitWidths, renderTable } from '../../src/output/table.js';
import type { Column, Row } from '../../src/output/view.js';
import { writeView } from '../../src/output/write.js';
import { Capture } from '../helpers/cli.js';

const ESC = '\u001b[';
const columns: Column[] = [{ key: 'ID' }, { key: 'lastname' }, { key: 'note' }];
const rows: Row[] = [
  { ID: 1, lastname: 'Müller, Groß & Söhne', note: 'says "hi"\nthen leaves' },
  { ID: 2, lastname: '東京', note: null },
  { ID: 3, lastname: 'semi;colon', note: { nested: [1, 2] } },
];

async function render(format: 'table' | 'json' | 'ndjson' | 'csv', opts: { tty?: boolean; columns?: number; color?: boolean } = {}) {
  const out = new Capture(opts.tty ?? false, opts.columns);
  async function* stream() {
    yield* rows;
  }
  await writeView(out, { kind: 'records', columns, rows: stream() }, { format, color: opts.color ?? false });
  return out.text;
}


describe('formatters', () => {
  it('writes JSON that parses back to the rows, streamed from an async source', async () => {
    expect(JSON.parse(await render('json'))).toEqual(rows);
    const out = new Capture(false);
    await writeView(out, { kind: 'records', columns, rows: [] }, { format: 'json', color: false });
    expect(out.text).toBe('[]\n');
  });

  it('writes one compact JSON object a line for ndjson', async () => {
    const lines = (await render('ndjson')).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(rows);
  });

  it('quotes CSV where needed and keeps unicode, newlines and quotes intact', async () => {
    const text = await render('csv');
    expect(text.split('\n')[0]).toBe('ID,lastname,note');
    expect(parseCsv(text)).toEqual([
      ['ID', 'lastname', 'note'],
      ['1', 'Müller, Groß & Söhne', 'says "hi"\nthen leaves'],
      ['2', '東京', ''],
      ['3', 'semi;colon', '{"nested":[1,2]}'],
    ]);
  });

  it('draws a table with upper-case headers, one line per row, no colour unless asked', async () => {
    const text = await render('table', { tty: true, columns: 120 });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+LASTNAME\s+NOTE$/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('says "hi" then leaves');
    expect(text).not.toContain(ESC);
    expect(await render('table', { tty: true, columns: 120, color: true })).toContain(`${ESC}1m`);
  });

  it('fits the table to the terminal width, cutting the widest cells with …', async () => {
    const text = await render('table', { tty: true, columns: 30 });
    for (const line of text.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(30);
    expect(text).toContain('…');
    // 10 + 21 + 5 plus two gaps of 2 is exactly 40.
    expect(fitWidths([10, 40, 5], 40)).toEqual([10, 21, 5]);
    expect(fitWidths([10, 40], undefined)).toEqual([10, 40]);
  });

  it('leaves no trailing blanks when the last cells are empty', () => {
    const text = renderTable([{ key: 'a' }, { key: 'b' }], [{ a: 'x', b: '' }, { a: 'longer', b: null }], { color: false });
    for (const line of text.split('\n')) expect(line).toBe(line.trimEnd());
  });

  it('keeps what would act on a terminal out of a table: C0 and C1 controls, separators, bidirectional overrides', () => {
    // 0x9b is an 8-bit CSI on some terminals; U+202E reverses the text after it on screen; U+2028 breaks a line.
    const hostile = ['a\u001b[31mred', 'b\u009b31mred', 'c\u202eesrever', 'd\u2066iso\u2069late', 'e\u2028f\u2029g', 'h\u0007i\u007f'];
    const text = renderTable([{ key: 'v' }], hostile.map((v) => ({ v })), { color: false });
    expect(text.split('\n').slice(1, -1)).toEqual(['a[31mred', 'b31mred', 'cesrever', 'disolate', 'e f g', 'hi']);
  });

  it('renders wide unicode and empty tables without failing', () => {
    expect(renderTable([{ key: 'a' }], [], { color: false })).toBe('A\n');
  });

  it('picks table on a terminal and JSON in a pipe, and names the valid formats', () => {
    expect(resolveFormat(undefined, true)).toBe('table');
    expect(resolveFormat(undefined, false)).toBe('json');
    expect(resolveFormat('csv', true)).toBe('csv');
    expect(() => resolveFormat('jsno', true)).toThrow("unknown output format 'jsno'; did you mean 'json'? (choose table, json, ndjson, csv, tsv)");
    expect(() => resolveFormat('parquet', false)).toThrow(
      "unknown output format 'parquet' (choose table, json, ndjson, csv, tsv); for a Parquet file: svc <family> export --format parquet --output FILE.parquet",
    );
  });

  it('uses colour only on a terminal, never with NO_COLOR, --no-color or TERM=dumb', () => {
    expect(useColor(true, {}, true)).toBe(true);
    expect(useColor(false, {}, true)).toBe(false);
    expect(useColor(true, { NO_COLOR: '1' }, true)).toBe(false);
    expect(useColor(true, {}, false)).toBe(false);
    expect(useColor(true, { TERM: 'dumb' }, true)).toBe(false);
  });
});

describe('display width', () => {
  it('counts wide characters as two columns and aligns them', async () => {
    const { displayWidth, truncateToWidth } = await import('../../src/output/width.js');
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('東京')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1); // e + combining acute accent: the mark takes no column
    expect(truncateToWidth('東京都庁', 5)).toBe('東京…');
    const text = renderTable([{ key: 'a' }, { key: 'b' }], [{ a: '東京', b: 1 }, { a: 'ab', b: 2 }], { color: false });
    const [, r1, r2] = text.split('\n');
    // Column b starts at display column 6 in both rows: '東京' is 4 columns wide, then the 2-space gap.
    expect(displayWidth(r1?.slice(0, r1.indexOf('1')) ?? '')).toBe(6);
    expect(displayWidth(r2?.slice(0, r2.indexOf('2')) ?? '')).toBe(6);
  });
});

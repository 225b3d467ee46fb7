/**
 * The import's CSV reader (src/import/csv.ts): whatever svc's own CSV writer
 * writes, it reads back cell for cell, with the line each record starts and
 * ends on; a huge value is read whole. Seeded property tests (the seed is
 * printed on failure: replay with SVC_CSV_SEED=…).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvRecords } from '../../src/import/csv.js';
import { csvLine } from '../../src/output/csv.js';

const seed = Number(process.env.SVC_CSV_SEED ?? Math.floor(Math.random() * 2 ** 31));
const params = { seed, numRuns: 2000 };
const cellChar = fc.constantFrom('a', 'Z', '1', ' ', ',', ';', '\t', '"', '\n', '\r', 'é', '😀', '\u0000');
const cell = fc.array(cellChar, { maxLength: 12 }).map((a) => a.join(''));

describe(`csvRecords (seed ${seed})`, () => {
  it.each([',', ';', '\t'])('reads back what the CSV writer writes, cells and line numbers, delimiter %j', (delimiter) => {
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n'), (rows, eol) => {
        // A record of one empty cell is a blank line, which the reader skips by design.
        const kept = rows.filter((r) => !(r.length === 1 && r[0] === ''));
        const text = kept.map((r) => csvLine(r, delimiter, eol)).join('');
        const read = [...csvRecords(text, delimiter)];
        expect(read.map((r) => r.cells)).toEqual(kept);
        expect(read.every((r) => r.problem === undefined)).toBe(true);
        // Each record starts on the line after the one before it ends on.
        let line = 1;
        for (const r of read) {
          expect(r.line).toBe(line);
          expect(r.lastLine).toBeGreaterThanOrEqual(r.line);
          line = r.lastLine + 1;
        }
      }),
      params,
    );
  });

  it('names an unclosed quote with the line it opened on, and keeps the records before it', () => {
    const read = [...csvRecords('a,b\n1,2\n3,"open\nstill\n', ',')];
    expect(read).toEqual([
      { line: 1, cells: ['a', 'b'], lastLine: 1 },
      { line: 2, cells: ['1', '2'], lastLine: 2 },
      { line: 3, cells: ['3', 'open\nstill\n'], lastLine: 4, problem: 'a quoted value opened on line 3 is never closed; close it with "' },
    ]);
  });

  it('reads a 50 MB value, quoted or not, whole', () => {
    const huge = 'x'.repeat(50 * 1024 * 1024);
    expect([...csvRecords(`a,"${huge}""q",b\n1,2,3\n`, ',')].map((r) => r.cells.map((c) => c.length))).toEqual([
      [1, huge.length + 2, 1],
      [1, 1, 1],
    ]);
    const [row] = [...csvRecords(`a,${huge},b\n`, ',')];
    expect(row?.cells[1] === huge).toBe(true);
  });
});

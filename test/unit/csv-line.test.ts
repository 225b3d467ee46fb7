import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { toCell } from '../../src/output/cells.js';
import { createCsvRecordWriter, csvLine } from '../../src/output/csv.js';
import { createRandom } from '../../src/util/random.js';

const ALPHABET = ['a', 'Z', '0', ' ', ',', ';', '"', '\n', '\r', '\t', 'é', '東', '😀', "'", '=', '-', '\\'];

function randomField(next: () => number): string {
  const n = Math.floor(next() * 6);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)] ?? '';
  return s;
}

describe('csvLine', () => {
  it('writes the same bytes as csv-stringify on random text', () => {
    const random = createRandom(42);
    for (let i = 0; i < 5000; i++) {
      const fields = Array.from({ length: 1 + Math.floor(random.next() * 4) }, () => randomField(random.next));
      // csv-stringify quotes only its own record delimiter (a lone CR in LF output, or a lone LF in
      // CRLF output, stays bare); svc quotes any CR or LF, so a parser splitting on either still
      // reads one record. Told to do the same, csv-stringify gives the same bytes.
      const same = { quoted_match: /[\r\n]/ };
      expect(csvLine(fields, ',', '\n'), JSON.stringify(fields)).toBe(stringify([fields], { delimiter: ',', record_delimiter: 'unix', ...same }));
      expect(csvLine(fields, ';', '\r\n'), JSON.stringify(fields)).toBe(stringify([fields], { delimiter: ';', record_delimiter: 'windows', ...same }));
    }
  });

  it('quotes what must be quoted and nothing else', () => {
    expect(csvLine(['plain', '', 'a,b', 'say "hi"', 'two\nlines', 'cr\r'])).toBe('plain,,"a,b","say ""hi""","two\nlines","cr\r"\n');
    expect(csvLine(['a;b', 'a,b'], ';')).toBe('"a;b";a,b\n');
  });
});

describe('createCsvRecordWriter', () => {
  const VALUES: readonly unknown[] = [null, undefined, 0, -1.5, 1e21, 42, true, false, { a: 'x,"y"' }, ['p', 1], '', 'plain'];

  function randomValue(next: () => number): unknown {
    return next() < 0.5 ? VALUES[Math.floor(next() * VALUES.length)] : randomField(next);
  }

  it('writes what csvLine writes for the same values as cells, for any delimiter', () => {
    const random = createRandom(7);
    const keys = ['a', 'b', 'c', 'd'];
    for (const delimiter of [',', ';', '\t', '|', '.', '-', 'e', '1', '*', '\\', '东', '😀']) {
      for (const eol of ['\n', '\r\n'] as const) {
        const write = createCsvRecordWriter(keys, delimiter, eol);
        for (let i = 0; i < 500; i++) {
          const row = Object.fromEntries(keys.map((k) => [k, randomValue(random.next)]));
          const expected = csvLine(keys.map((k) => toCell(row[k])), delimiter, eol);
          expect(write(row), `${JSON.stringify(delimiter)} ${JSON.stringify(row)}`).toBe(expected);
        }
      }
    }
  });

  it('quotes a number that holds the delimiter', () => {
    expect(createCsvRecordWriter(['n', 's'], '.')({ n: 1.5, s: 'x' })).toBe('"1.5".x\n');
  });
});

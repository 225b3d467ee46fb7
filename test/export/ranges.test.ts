import { describe, expect, it } from 'vitest';
import { createRecordCounter } from '../../src/export/server-side.js';
import { idSelection, pageBody } from '../../src/export/pager.js';
import { canonicalJson, parseShard } from '../../src/export/plan.js';
import { planRanges, splitRange } from '../../src/export/ranges.js';
import { renderProgress } from '../../src/export/progress.js';

describe('ID ranges', () => {
  it('splits min..max into contiguous ranges from 0 with an open end', () => {
    expect(splitRange(1, 100, 4)).toEqual([
      { after: 0, upTo: 25 },
      { after: 25, upTo: 50 },
      { after: 50, upTo: 75 },
      { after: 75, upTo: null },
    ]);
  });

  it('splits a shard again for concurrency, keeping the shard bounds', () => {
    const shard = planRanges({ min: 1, max: 100 }, 2, { index: 2, count: 4 });
    expect(shard).toEqual([
      { after: 25, upTo: 37 },
      { after: 37, upTo: 50 },
    ]);
    expect(planRanges(undefined, 3, { index: 1, count: 2 })).toEqual([{ after: 0, upTo: 0 }]);
    expect(planRanges(undefined, 3, { index: 2, count: 2 })).toEqual([{ after: 0, upTo: null }]);
  });

  it('parses K/N shards', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard('0/4')).toBeUndefined();
    expect(parseShard('5/4')).toBeUndefined();
  });
});

describe('page bodies', () => {
  it('asks above the last ID, within the range, sorted by ID, with the filter ANDed', () => {
    const sel = idSelection(['lastname']);
    expect(sel).toEqual({ fields: ['lastname', 'ID'], idKey: 'ID', strip: true });
    const body = pageBody({ filterMember: 'filters', filter: { type: 1 }, fields: sel.fields, idKey: 'ID' }, { after: 10, upTo: 90 }, 42, 500);
    expect(body).toEqual({ filters: { 0: ['AND', { type: 1 }, { ID: { '>': 42, '<=': 90 } }] }, sort: ['+ID'], limit: 500, fields: ['lastname', 'ID'] });
  });

  it('keeps an aliased ID and adds one to an alias map without it', () => {
    expect(idSelection({ key: 'ID', name: 'lastname' })).toMatchObject({ idKey: 'key', strip: false });
    expect(idSelection({ name: 'lastname' })).toEqual({ fields: { name: 'lastname', ID: 'ID' }, idKey: 'ID', strip: true });
  });
});

describe('helpers', () => {
  it('counts CSV records, not line breaks inside quotes', () => {
    const c = createRecordCounter();
    c.feed('ID;name\r\n1;"a\r\nb"\r\n2;"say ""hi');
    c.feed('"""\r\n3;x');
    expect(c.records).toBe(4);
  });

  it('renders canonical JSON with sorted keys', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }], u: undefined })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it('renders a progress line with a bar, rate and ETA', () => {
    expect(renderProgress('accounts export', 500, 1000, 100)).toBe('accounts export: [##########----------] 500/1,000 rows  100 rows/s  ETA 0:05');
    expect(renderProgress('x', 5, undefined, 2)).toBe('x: 5 rows  2 rows/s');
  });
});

import { describe, expect, it } from 'vitest';
import { createRecordCounter } from '../../src/export/server-side.js';
import { idSelection, pageBody } from '../../src/export/pager.js';
import { canonicalJson, parseShard } from '../../src/export/plan.js';
import { createChunker } from '../../src/export/chunks.js';
import { shardRange, splitRange } from '../../src/export/ranges.js';
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

  it('gives a shard its part of min..max; without records, the last shard an open range', () => {
    expect(shardRange({ min: 1, max: 100 }, { index: 2, count: 4 })).toEqual({ after: 25, upTo: 50 });
    expect(shardRange({ min: 1, max: 100 }, { index: 4, count: 4 })).toEqual({ after: 75, upTo: null });
    expect(shardRange({ min: 1, max: 100 })).toEqual({ after: 0, upTo: null });
    expect(shardRange(undefined, { index: 1, count: 2 })).toEqual({ after: 0, upTo: 0 });
    expect(shardRange(undefined, { index: 2, count: 2 })).toEqual({ after: 0, upTo: null });
  });

  it('parses K/N shards', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard('0/4')).toBeUndefined();
    expect(parseShard('5/4')).toBeUndefined();
  });
});

describe('chunks of a range', () => {
  const all = (next: () => { after: number; upTo: number | null } | undefined): { after: number; upTo: number | null }[] => {
    const out = [];
    for (let c = next(); c; c = next()) out.push(c);
    return out;
  };

  it('without a density, hands out the rest of the range as one chunk', () => {
    expect(all(createChunker({ after: 0, upTo: null }, 40, 1000).next)).toEqual([{ after: 40, upTo: null }]);
    expect(all(createChunker({ after: 10, upTo: 90 }, 10, 1000).next)).toEqual([{ after: 10, upTo: 90 }]);
  });

  it('cuts dense IDs into a page each, contiguous, the last one open', () => {
    const chunks = all(createChunker({ after: 0, upTo: null }, 0, 100, { max: 350, count: 100, upTo: 100 }).next);
    expect(chunks).toEqual([
      { after: 0, upTo: 100 },
      { after: 100, upTo: 200 },
      { after: 200, upTo: 300 },
      { after: 300, upTo: null },
    ]);
  });

  it('keeps a bounded range bounded, and widens chunks over sparse IDs to about a page', () => {
    const chunker = createChunker({ after: 1000, upTo: 100_000 }, 1000, 100, { max: 100_000, count: 100, upTo: 11_000 });
    const first = chunker.next();
    expect(first).toEqual({ after: 1000, upTo: 1000 + Math.floor((0.9 * 100 * 10_000) / 100) });
    const chunks = all(chunker.next);
    expect(chunks.at(-1)?.upTo).toBe(100_000);
    for (const [i, c] of chunks.entries()) expect(c.after).toBe(i === 0 ? first?.upTo : chunks[i - 1]?.upTo);
  });

  it('narrows chunks that came back fuller than a page, a step at a time', () => {
    const chunker = createChunker({ after: 0, upTo: null }, 0, 100, { max: 1_000_000, count: 100, upTo: 100_000 });
    const first = chunker.next();
    if (!first || first.upTo === null) throw new Error('expected a bounded chunk');
    const width = first.upTo - first.after;
    chunker.observe(first, 100 * 1000);
    const second = chunker.next();
    expect(second?.after).toBe(first.upTo);
    expect((second?.upTo ?? 0) - (second?.after ?? 0)).toBe(Math.ceil(width / 8));
  });
});

describe('page bodies', () => {
  it('asks above the last ID, within the range, sorted by ID, with the filter ANDed', () => {
    const sel = idSelection(['lastname']);
    expect(sel).toEqual({ fields: { lastname: 'lastname', ID: 'ID' }, idKey: 'ID', strip: true });
    const body = pageBody({ filterMember: 'filters', filter: { type: 1 }, fields: sel.fields, idKey: 'ID' }, { after: 10, upTo: 90 }, 42, 500);
    // The range joins the filter as a member (no new level: src/records/page-filter.ts).
    expect(body).toEqual({ filters: { type: 1, ID: { '>': 42, '<=': 90 } }, sort: ['+ID'], limit: 500, fields: { lastname: 'lastname', ID: 'ID' } });
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

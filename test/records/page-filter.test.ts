import { describe, expect, it } from 'vitest';
import { andCondition, pageFilter } from '../../src/records/page-filter.js';
import { parseFilter } from '../../src/sandbox/data/query/filter-tree.js';

/** `["NOT", …]` nested n levels deep around `inner`, under numeric keys as the compiler writes it. */
function nested(n: number, inner: Record<string, unknown>): Record<string, unknown> {
  let f = inner;
  for (let i = 0; i < n; i++) f = { 0: ['NOT', f] };
  return f;
}

describe('pageFilter: the filter AND ID > after, no deeper and no longer than it must be', () => {
  it('adds the bound as a member of the top-level object', () => {
    expect(pageFilter(undefined, 5)).toEqual({ ID: { '>': 5 } });
    expect(pageFilter({}, 5)).toEqual({ ID: { '>': 5 } });
    expect(pageFilter({ type: 1, 0: ['OR', { a: 1 }, { b: 2 }] }, 5)).toEqual({ type: 1, 0: ['OR', { a: 1 }, { b: 2 }], ID: { '>': 5 } });
  });

  it("merges into the filter's own ID member, tightening a > or >= bound instead of adding a condition", () => {
    expect(pageFilter({ ID: { '>': 10 } }, 5)).toEqual({ ID: { '>': 10 } });
    expect(pageFilter({ ID: { '>': 10 } }, 20)).toEqual({ ID: { '>': 20 } });
    expect(pageFilter({ ID: { '>=': 10 } }, 5)).toEqual({ ID: { '>=': 10 } });
    expect(pageFilter({ ID: { '>=': 10 } }, 10)).toEqual({ ID: { '>': 10 } });
    expect(pageFilter({ ID: { '<=': 99 } }, 5)).toEqual({ ID: { '<=': 99, '>': 5 } });
    expect(pageFilter({ ID: 3 }, 5)).toEqual({ ID: { '=': 3, '>': 5 } });
    expect(pageFilter({ ID: [1, 7] }, 5)).toEqual({ ID: { IN: [1, 7], '>': 5 } });
    // With a range's upper end: tightened the same way.
    expect(pageFilter({ ID: { '<': 50 } }, 3, 40)).toEqual({ ID: { '>': 3, '<=': 40 } });
    expect(pageFilter({ ID: { '<': 20 } }, 3, 40)).toEqual({ ID: { '<': 20, '>': 3 } });
    expect(pageFilter({ ID: { '<=': 30 } }, 3, 40)).toEqual({ ID: { '<=': 30, '>': 3 } });
    expect(pageFilter(undefined, 3, 40)).toEqual({ ID: { '>': 3, '<=': 40 } });
  });

  it('puts a top-level composite under a numeric key (the same level), and leaves what it cannot merge one level down', () => {
    expect(pageFilter(['OR', { a: 1 }, { b: 2 }] as unknown as Record<string, unknown>, 5)).toEqual({ 0: ['OR', { a: 1 }, { b: 2 }], ID: { '>': 5 } });
    expect(pageFilter({ 0: 'NOT', 1: { a: 1 } }, 5)).toEqual({ 0: { 0: 'NOT', 1: { a: 1 } }, ID: { '>': 5 } });
    expect(pageFilter({ ID: { '>': '7' }, 0: ['NOT', { a: 1 }] }, 5)).toEqual({ ID: { '>': '7' }, 0: ['NOT', { a: 1 }], 1: ['AND', { ID: { '>': 5 } }] });
  });

  it('keeps an own __proto__ member and never changes the filter it is given', () => {
    const filter = JSON.parse('{"__proto__": {"=": 1}, "ID": {">": 3}}') as Record<string, unknown>;
    const out = pageFilter(filter, 9);
    expect(Object.keys(out)).toEqual(['__proto__', 'ID']);
    expect(out.ID).toEqual({ '>': 9 });
    expect(filter.ID).toEqual({ '>': 3 });
  });

  it('what the sandbox takes at its limits (32 levels, 1,000 conditions with an ID bound) it takes with the bound added', () => {
    const deep = [nested(32, { ID: { '>': 1 } }), { 0: ['OR', nested(31, { a: 1 }), { b: 2 }], ID: 4 }, ['AND', nested(31, { ID: 1 })] as unknown as Record<string, unknown>];
    for (const f of deep) {
      expect(() => parseFilter(f)).not.toThrow();
      expect(() => parseFilter(pageFilter(f, 12))).not.toThrow();
      expect(() => parseFilter({ 0: ['AND', f, { ID: { '>': 12 } }] })).toThrow(/deeper than 32/);
    }
    const many: Record<string, unknown> = { ID: { '>': 0 } };
    for (let i = 0; i < 999; i++) many[`extdata.f${i}`] = i;
    expect(() => parseFilter(many)).not.toThrow();
    expect(() => parseFilter(pageFilter(many, 500))).not.toThrow();
  });
});

describe('andCondition: a filter AND one field condition, no deeper than the filter', () => {
  it('adds a member, merges into the field\'s own (tightening bounds), or sits one level down', () => {
    expect(andCondition(undefined, 'lastmodified', { '>=': 5 })).toEqual({ lastmodified: { '>=': 5 } });
    expect(andCondition({ type: 1 }, 'lastmodified', { '>=': 5 })).toEqual({ type: 1, lastmodified: { '>=': 5 } });
    expect(andCondition({ lastmodified: { '>=': 9 } }, 'lastmodified', { '>=': 5 })).toEqual({ lastmodified: { '>=': 9 } });
    expect(andCondition({ lastmodified: { '<': 9 } }, 'lastmodified', { '>=': 5 })).toEqual({ lastmodified: { '<': 9, '>=': 5 } });
    expect(andCondition({ ID: { '<=': 50 } }, 'ID', { '>': 3, '<=': 40 })).toEqual({ ID: { '<=': 40, '>': 3 } });
    expect(andCondition({ lastmodified: { '=': 'x' } }, 'lastmodified', { '=': 7 })).toEqual({ lastmodified: { '=': 'x' }, 0: ['AND', { lastmodified: { '=': 7 } }] });
    expect(andCondition({ 0: 'NOT', 1: { a: 1 } }, 'ID', { '>': 2 })).toEqual({ 0: { 0: 'NOT', 1: { a: 1 } }, ID: { '>': 2 } });
  });

  it('what the sandbox takes at 32 levels it takes with a lastmodified or ID range added', () => {
    const f = nested(32, { type: 1 });
    expect(() => parseFilter(andCondition(f, 'lastmodified', { '>=': 1 }))).not.toThrow();
    expect(() => parseFilter(pageFilter(andCondition(f, 'lastmodified', { '>=': 1 }), 10, 99))).not.toThrow();
    expect(() => parseFilter(andCondition(f, 'ID', { '>': 1, '<=': 9 }))).not.toThrow();
  });

  it('keeps own __proto__ members as data and never changes the filter given', () => {
    const filter = JSON.parse('{"__proto__": {"=": 1}, "lastmodified": {">=": 3}}') as Record<string, unknown>;
    const out = andCondition(filter, 'lastmodified', { '>=': 8 });
    expect(Object.keys(out)).toEqual(['__proto__', 'lastmodified']);
    expect(out.lastmodified).toEqual({ '>=': 8 });
    expect(filter.lastmodified).toEqual({ '>=': 3 });
    const proto = andCondition({}, '__proto__', { '=': 1 });
    expect(Object.keys(proto)).toEqual(['__proto__']);
  });
});

import { describe, expect, it } from 'vitest';
import { helpTopics } from '../../src/cli/help-topics.js';
import { findFamily } from '../../src/catalogue/index.js';
import { combineFilters, compileFilter, filterHelp } from '../../src/filter/index.js';
import { FILTER_EXAMPLES } from '../../src/filter/help.js';
import { tokenize } from '../../src/filter/lexer.js';
import { OPERATORS } from '../../src/filter/operators.js';

describe('combineFilters', () => {
  it('returns an empty filter for none and an equal copy for one', () => {
    expect(combineFilters([])).toEqual({});
    expect(combineFilters([{ type: 1, 0: ['OR', { a: 1 }, { b: 2 }] }])).toEqual({ type: 1, 0: ['OR', { a: 1 }, { b: 2 }] });
  });

  it('merges distinct fields and distinct operators on one field', () => {
    expect(combineFilters([{ type: 1 }, { lastname: { '~': 'a' } }])).toEqual({ type: 1, lastname: { '~': 'a' } });
    expect(combineFilters([{ date: { '>=': 1 } }, { date: { '<': 9 } }])).toEqual({ date: { '>=': 1, '<': 9 } });
    expect(combineFilters([{ type: 1 }, { type: { '<': 5 } }])).toEqual({ type: { '=': 1, '<': 5 } });
    expect(combineFilters([{ type: [1, 2] }, { type: { '!=': 2 } }])).toEqual({ type: { IN: [1, 2], '!=': 2 } });
  });

  it('keeps colliding members in an AND array and renumbers composites', () => {
    expect(combineFilters([{ type: 1 }, { type: 2 }, { type: { '=': 3 } }])).toEqual({ type: 1, 0: ['AND', { type: 2 }, { type: { '=': 3 } }] });
    expect(combineFilters([{ type: { in: [1] } }, { type: { IN: [2] } }])).toEqual({ type: { in: [1] }, 0: ['AND', { type: { IN: [2] } }] });
    expect(combineFilters([{ 0: ['OR', { a: 1 }] }, { 0: ['NOT', { b: 1 }] }])).toEqual({ 0: ['OR', { a: 1 }], 1: ['NOT', { b: 1 }] });
    expect(combineFilters([{ a: null }, { a: null }])).toEqual({ a: null, 0: ['AND', { a: null }] });
  });

  it('treats members named like Object.prototype properties as plain fields', () => {
    const parsed = JSON.parse('{"__proto__": {"=": 1}, "constructor": 2}') as Record<string, unknown>;
    const out = combineFilters([parsed, { constructor: 3 }]);
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse('{"__proto__": {"=": 1}, "constructor": 2, "0": ["AND", {"constructor": 3}]}'));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('lexer', () => {
  it('gives every token its offsets', () => {
    const r = tokenize(`city ~* "^b\\"er" and (n in (1,2))`);
    expect(r.ok && r.value.map((t) => [t.kind, t.text, t.start, t.end])).toEqual([
      ['word', 'city', 0, 4],
      ['operator', '~*', 5, 7],
      ['string', '^b"er', 8, 16],
      ['word', 'and', 17, 20],
      ['lparen', '(', 21, 22],
      ['word', 'n', 22, 23],
      ['word', 'in', 24, 26],
      ['lparen', '(', 27, 28],
      ['word', '1', 28, 29],
      ['comma', ',', 29, 30],
      ['word', '2', 30, 31],
      ['rparen', ')', 31, 32],
      ['rparen', ')', 32, 33],
      ['end', '', 33, 33],
    ]);
  });
});

describe('svc help filters', () => {
  it('is registered as a help topic', async () => {
    expect(await helpTopics.filters?.page()).toBe(filterHelp);
  });

  it('lists every operator of the operator table, and the date words', () => {
    for (const o of OPERATORS) {
      if (o.symbol !== undefined) expect(filterHelp).toContain(`  ${o.symbol}`);
      for (const w of o.words) expect(filterHelp).toContain(w);
      expect(filterHelp).toContain(o.meaning);
    }
    for (const w of ['now', 'today', 'yesterday', 'startofweek', 'startofmonth', '-7d', 'Europe/Berlin', 'filters', '["AND", …]']) expect(filterHelp).toContain(w);
  });

  it('shows examples that compile for their families', () => {
    const shown = [...filterHelp.matchAll(/svc (\w+) query --filter '([^']+)'/g)].map((m) => [m[1] ?? '', m[2] ?? ''] as const);
    expect(shown.length).toBe(FILTER_EXAMPLES.length + 1);
    for (const [name, text] of shown) {
      const family = findFamily(name);
      if (!family) throw new Error(`no family ${name}`);
      const r = compileFilter(text, family, { now: 0, timeZone: 'UTC' });
      expect(r.ok, `${name}: ${text}`).toBe(true);
    }
  });
});

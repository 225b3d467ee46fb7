import { describe, expect, it } from 'vitest';
import { families, findFamily } from '../../src/catalogue/index.js';
import { combineFilters, compileFilter, renderFilterError } from '../../src/filter/index.js';
import { createRandom as createSeeded } from '../../src/util/random.js';

/** A seeded generator, so a failure can be replayed. */
function createRandom(seed: number): () => number {
  return createSeeded(seed).next;
}

const TOKENS = [
  'and', 'or', 'not', 'in', 'is', 'null', 'like', 'ilike', 'matches', 'imatches', 'true', 'false', 'NOT', 'And',
  '(', ')', ',', '=', '!=', '<>', '<', '<=', '>', '>=', '~', '~*', '!~', '!~*', '~~', '~~*', '!~~', '!~~*', '!', '==', '*',
  'type', 'lastname', 'contact', 'contact.city', 'contact.type', 'contact.', 'extdata.score', 'extdata.', 'ID', 'id', 'visibility',
  'creationdate', 'status', 'date', 'datefrom', 'recurrence', 'items', 'lastnme', 'a.b.c', '.x',
  'CUSTOMER', 'customer', 'DRAFT', 'WEEK', 'PERSON', 'BOGUS', '1', '-1', '0', '1.5', '1e400', '99999999999999999999', '01067',
  '2026-11-01', '2026-13-01', '2026-11-01T08:30', '2026-11-01T08:30Z', '2026-11-01T08:30+25:00', '-7d', '+2h', 'now', 'today',
  'startofweek', 'startofmonth', '"x"', "'y'", '"\\d+"', '"(ab"', '"unterminated', "'", '"', '\\', '%ab%', '@', 'é', '😀',
];
const CHARS = ' \t\n()=!<>~*,.\'"\\%_-+:/@abcxyzAZ019é😀;#$&|[]{}?^\u0000\u007f';

function randomText(random: () => number): string {
  const pick = <T,>(xs: readonly T[] | string): T | string => xs[Math.floor(random() * xs.length)] ?? '';
  const n = Math.floor(random() * 12);
  let text = '';
  for (let i = 0; i < n; i++) {
    const r = random();
    if (r < 0.75) text += (random() < 0.7 ? ' ' : '') + String(pick(TOKENS));
    else text += String(pick(CHARS));
  }
  return text;
}

const FIELDS = ['type', 'lastname', 'contact', 'contact.city', 'extdata.score', 'ID', 'creationdate', 'status', 'date', 'datefrom', 'visibility', 'locked'];
const OPS = ['=', '!=', '<', '>=', '~*', 'like', 'not ilike', 'in', 'not in', 'is', 'is not'];
const VALUES = ['1', 'CUSTOMER', 'DRAFT', '"Berlin"', 'x', 'null', 'true', '2026-11-01', '-7d', 'today', '"%a%"', 'WEEK'];

/** A mostly grammatical expression: conditions joined by and/or, with not and parentheses. */
function randomExpression(random: () => number, depth = 0): string {
  const pick = (xs: readonly string[]): string => xs[Math.floor(random() * xs.length)] ?? '';
  const r = random();
  if (depth < 3 && r < 0.25) return `${randomExpression(random, depth + 1)} ${pick(['and', 'or', 'AND'])} ${randomExpression(random, depth + 1)}`;
  if (depth < 3 && r < 0.35) return `not ${randomExpression(random, depth + 1)}`;
  if (depth < 3 && r < 0.45) return `(${randomExpression(random, depth + 1)})`;
  const op = pick(OPS);
  const value = op.endsWith('in') ? `(${pick(VALUES)}, ${pick(VALUES)})` : op.startsWith('is') ? 'null' : pick(VALUES);
  return `${pick(FIELDS)} ${op} ${value}`;
}

const FAMILIES = ['accounts', 'contacts', 'actionsteps', 'appointments', 'transactions'].map((n) => findFamily(n)).filter((f) => f !== undefined);
const NOW = Date.UTC(2026, 10, 18, 14, 30, 0);

describe('compileFilter: property — never throws, spans lie within the text', () => {
  it('holds for 6000 random expressions of tokens and characters', () => {
    const random = createRandom(20261118);
    let compiled = 0;
    let failed = 0;
    for (let i = 0; i < 6000; i++) {
      const text = i % 2 === 0 ? randomText(random) : randomExpression(random);
      const family = FAMILIES[i % FAMILIES.length] ?? families[0];
      if (!family) throw new Error('no family');
      const zone = i % 7 === 0 ? 'Not/AZone' : i % 2 === 0 ? 'Europe/Berlin' : undefined;
      const r = compileFilter(text, family, { now: NOW, ...(zone ? { timeZone: zone } : {}) });
      if (r.ok) {
        compiled++;
        expect(typeof r.filter, text).toBe('object');
        expect(JSON.parse(JSON.stringify(r.filter)), text).toEqual(r.filter);
      } else {
        failed++;
        const { start, end, message } = r.error;
        expect(Number.isInteger(start) && Number.isInteger(end), text).toBe(true);
        expect(0 <= start && start <= end && end <= text.length, `${JSON.stringify(text)} → ${start}..${end}`).toBe(true);
        expect(message, text).not.toMatch(/\n|internal error/);
        const lines = renderFilterError(text, r.error).split('\n');
        expect(lines.length === 2 || lines.length === 3, text).toBe(true);
      }
    }
    // The generator must exercise both outcomes, or the property says little.
    expect(compiled).toBeGreaterThan(100);
    expect(failed).toBeGreaterThan(100);
  });

  it('survives deep nesting and long input without a stack overflow', () => {
    const accounts = findFamily('accounts');
    if (!accounts) throw new Error('no accounts');
    for (const text of ['('.repeat(5000) + 'type = 1' + ')'.repeat(5000), 'not '.repeat(5000) + 'type = 1', Array(3000).fill('type = 1').join(' or ')]) {
      const r = compileFilter(text, accounts, { now: NOW });
      if (!r.ok) expect(r.error.end).toBeLessThanOrEqual(text.length);
    }
    const ok = compileFilter('('.repeat(50) + 'type = 1' + ')'.repeat(50), accounts, { now: NOW });
    expect(ok).toEqual({ ok: true, filter: { type: 1 } });
  });

  it('combineFilters never drops a condition of random compiled filters', () => {
    const random = createRandom(7);
    const accounts = findFamily('accounts');
    if (!accounts) throw new Error('no accounts');
    const parts = ['type = 1', 'type != 2', 'type = 3 or locked = 1', 'lastname ~ a', 'lastname ~ b', 'locked = 0', 'ID > 3', 'ID in (1, 2)'];
    for (let i = 0; i < 300; i++) {
      const chosen = parts.filter(() => random() < 0.5);
      const compiled = chosen.map((p) => compileFilter(p, accounts, { now: NOW })).flatMap((r) => (r.ok ? [r.filter] : []));
      const combined = JSON.stringify(combineFilters(compiled));
      for (const c of compiled) for (const v of Object.values(c)) expect(combined).toContain(JSON.stringify(v).slice(1, -1));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { addDecimal, DecimalSum, formatDecimal, parseDecimal, toJsonDecimal, type Decimal } from '../../src/util/decimal.js';

const d = (v: number | string): Decimal => {
  const r = parseDecimal(v);
  if (!r) throw new Error(`not a decimal: ${v}`);
  return r;
};

const sumOf = (values: readonly (number | string)[]): string => {
  const s = new DecimalSum();
  for (const v of values) expect(s.add(v)).toBe(true);
  return formatDecimal(s.total);
};

describe('decimal', () => {
  it('reads numbers through their decimal text and strings as written', () => {
    expect(d(1.1)).toEqual({ units: 11n, scale: 1 });
    expect(d('-12.50')).toEqual({ units: -125n, scale: 1 });
    expect(d('1.5e-7')).toEqual({ units: 15n, scale: 8 });
    expect(d(1e21)).toEqual({ units: 10n ** 21n, scale: 0 });
    expect(d('.5')).toEqual({ units: 5n, scale: 1 });
    expect(d(-0)).toEqual({ units: 0n, scale: 0 });
  });

  it('refuses what is not a finite decimal', () => {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, '', '-', 'abc', '1.2.3', '1e99999']) expect(parseDecimal(v)).toBeUndefined();
  });

  it('sums without binary float drift', () => {
    expect(sumOf(Array.from({ length: 120 }, () => 1.1))).toBe('132');
    expect(sumOf([0.1, 0.2])).toBe('0.3');
    expect(sumOf([-0.05, 0.01, '0.04'])).toBe('0');
    expect(sumOf([-1.25, -2])).toBe('-3.25');
    expect(sumOf([0.001, 5e-324 * 0, 1e-7])).toBe('0.0010001');
    expect(sumOf([])).toBe('0');
  });

  it('sums integers beyond 2^53 exactly', () => {
    const big = Number.MAX_SAFE_INTEGER;
    expect(sumOf([big, big, big])).toBe((3n * BigInt(big)).toString());
    expect(sumOf(['123456789012345678901234567890', '1'])).toBe('123456789012345678901234567891');
  });

  it('adds two decimals of different scales', () => {
    expect(formatDecimal(addDecimal(d('1.005'), d(2)))).toBe('3.005');
    expect(formatDecimal(addDecimal(d(2), d('-0.5')))).toBe('1.5');
  });

  it('writes JSON numbers only when their text is the exact total', () => {
    expect(toJsonDecimal(d('132'))).toBe(132);
    expect(toJsonDecimal(d('0.3'))).toBe(0.3);
    expect(toJsonDecimal(d('-3.25'))).toBe(-3.25);
    expect(toJsonDecimal(d('9007199254740993'))).toBe('9007199254740993');
    expect(toJsonDecimal(d('0.12345678901234567890'))).toBe('0.1234567890123456789');
  });

  it('compares by value, not by text: a number whose shortest text ("1.5e-7", "1e+21") is the exact total is a number', () => {
    expect(toJsonDecimal(d('0.00000015'))).toBe(1.5e-7);
    expect(toJsonDecimal(d(1.5e-7))).toBe(1.5e-7);
    expect(toJsonDecimal(d('1000000000000000000000'))).toBe(1e21);
    expect(toJsonDecimal(d('-1e-300'))).toBe(-1e-300);
    expect(toJsonDecimal(d('1000000000000000000001'))).toBe('1000000000000000000001');
    expect(toJsonDecimal(d('0.000000150000000000000001'))).toBe('0.000000150000000000000001');
    // Past binary64: the exact text, never Infinity or 0.
    expect(toJsonDecimal(d(`1${'0'.repeat(309)}`))).toBe(`1${'0'.repeat(309)}`);
    expect(toJsonDecimal(d('1e-400'))).toBe(`0.${'0'.repeat(399)}1`);
  });
});

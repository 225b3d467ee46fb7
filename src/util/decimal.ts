/**
 * Exact decimal arithmetic for totals: a value is a scaled BigInt (`units`
 * × 10^-`scale`), read from the decimal text of a number, so 120 × 1.1 sums
 * to 132 and 0.1 + 0.2 to 0.3 instead of carrying binary float drift.
 */

/** A decimal value: `units / 10 ** scale`, exactly. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** Zero at scale 0. */
export const ZERO: Decimal = { units: 0n, scale: 0 };

/** Beyond any double (5e-324 … 1.8e308): larger exponents are refused rather than expanded. */
const MAX_EXPONENT = 400;

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** 10 to a non-negative whole power, as a BigInt. */
function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/**
 * Parses a decimal: a JSON number (read through its shortest round-trip
 * text, which is the text the service sent when that text had at most 17
 * significant digits) or a numeric string such as "-12.50" or "1.5e-7".
 * Returns undefined for anything else (NaN, Infinity, "abc", "").
 */
export function parseDecimal(value: number | string): Decimal | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  const text = typeof value === 'number' ? String(value) : value.trim();
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = m;
  if ((whole === '' && fraction === '') || Math.abs(Number(exponent)) > MAX_EXPONENT) return undefined;
  const digits = BigInt(`${whole}${fraction}` || '0');
  let scale = fraction.length - Number(exponent);
  let units = sign === '-' ? -digits : digits;
  if (scale < 0) {
    units *= pow10(-scale);
    scale = 0;
  }
  return normalize({ units, scale });
}

/** The same value with no trailing zeros in the fraction (scale as small as it can be). */
export function normalize(d: Decimal): Decimal {
  let { units, scale } = d;
  if (units === 0n) return ZERO;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return { units, scale };
}

/** The exact sum of two decimals. */
export function addDecimal(a: Decimal, b: Decimal): Decimal {
  if (a.scale === b.scale) return { units: a.units + b.units, scale: a.scale };
  if (a.scale > b.scale) return { units: a.units + b.units * pow10(a.scale - b.scale), scale: a.scale };
  return { units: a.units * pow10(b.scale - a.scale) + b.units, scale: b.scale };
}

/** Plain decimal text without exponent or trailing zeros: "132", "0.3", "-0.05". */
export function formatDecimal(d: Decimal): string {
  const { units, scale } = normalize(d);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (scale === 0) return `${negative ? '-' : ''}${digits}`;
  const padded = digits.padStart(scale + 1, '0');
  const cut = padded.length - scale;
  return `${negative ? '-' : ''}${padded.slice(0, cut)}.${padded.slice(cut)}`;
}

/**
 * The decimal as a JSON value: a number when that number's own text is
 * exactly the decimal by value ("132", "0.3", "1.5e-7" for 0.00000015,
 * "1e+21" for 10^21: a reader gets what was summed), else the decimal text as
 * a string (more digits than a double holds, or an integer beyond 2^53), so
 * JSON output never rounds silently.
 */
export function toJsonDecimal(d: Decimal): number | string {
  const text = formatDecimal(d);
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  const back = parseDecimal(n);
  const exact = normalize(d);
  return back !== undefined && back.units === exact.units && back.scale === exact.scale ? n : text;
}

/**
 * A running total that stays exact: add values one by one (numbers or numeric
 * strings), read the total at the end. Keeps one BigInt at the largest scale
 * seen, so adding costs one BigInt addition for values of the usual scales.
 */
export class DecimalSum {
  private units = 0n;
  private scale = 0;

  /** Adds one value; false (and nothing added) when it is not a decimal. */
  add(value: number | string): boolean {
    const d = parseDecimal(value);
    if (!d) return false;
    if (d.scale > this.scale) {
      this.units *= pow10(d.scale - this.scale);
      this.scale = d.scale;
    }
    this.units += d.scale === this.scale ? d.units : d.units * pow10(this.scale - d.scale);
    return true;
  }

  /** The total so far. */
  get total(): Decimal {
    return normalize({ units: this.units, scale: this.scale });
  }
}

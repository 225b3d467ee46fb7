/**
 * The table a family is copied into: one column per selected field, typed
 * from the catalogue, and how each value the service sends is stored. The
 * same plan serves SQLite and DuckDB; each store names its own SQL types.
 */
import type { Field, ResourceFamily } from '../catalogue/index.js';
import { isComposite } from '../catalogue/index.js';
import { SvcError, UsageError } from '../errors.js';
import type { Row } from '../output/view.js';
import { fieldOfPath } from '../records/columns.js';
import type { Selected } from '../records/query-body.js';
import { hasControlCharacter, integerFrom } from '../export/column-rules.js';
import { formatDecimal, parseDecimal } from '../util/decimal.js';
import { shown } from '../util/shown.js';

/**
 * How a column stores its values: integers by width, flags as booleans,
 * doubles, money (exact decimals where the engine has them), text, JSON text
 * (composite fields), and `any` for a path the catalogue cannot type
 * (extdata.NAME): strings and numbers as they come, anything else as JSON.
 */
export type ColumnKind = 'smallint' | 'int' | 'bigint' | 'bool' | 'double' | 'money' | 'text' | 'json' | 'any';

export interface ColumnPlan {
  /** The column's name: the field's name, or its alias from --fields. */
  readonly name: string;
  /** The path the service reads. */
  readonly path: string;
  readonly kind: ColumnKind;
}

/** The column `--keep-deleted` adds: when the record was seen gone (Unix seconds), NULL while it exists. */
export const DELETED_AT = '_deleted_at';

/**
 * Money: the catalogue types every decimal field `double` (the service keeps
 * them as double precision), so the fields that hold amounts of money are
 * named here. DuckDB stores them as DECIMAL(38,10); SQLite has no decimal
 * type and stores them as REAL, which holds the service's double exactly.
 */
const MONEY: Readonly<Record<string, readonly string[]>> = {
  components: ['price'],
  couponcodes: ['value'],
  coupons: ['value'],
  dunning: ['fee'],
  items: ['sellingprice', 'purchaseprice'],
  opportunities: ['worstcase', 'mostlikely', 'upside'],
  payments: ['amount'],
  prices: ['price', 'rebate', 'minamount', 'costprice'],
  stocktransactions: ['sellingprice', 'purchaseprice'],
  suppliers: ['price', 'minamount'],
  transactions: ['netamount', 'tax', 'margin'],
};

/** Whether a field of a family holds money. */
export function isMoney(family: string, field: string): boolean {
  return Object.hasOwn(MONEY, family) && (MONEY[family] ?? []).includes(field);
}

function kindOf(familyName: string, path: string, field: Field | undefined): ColumnKind {
  if (!field) return 'any';
  switch (field.type) {
    case 'int16':
      return 'smallint';
    case 'int32':
      return 'int';
    case 'int64':
      return 'bigint';
    case 'flag':
      return 'bool';
    case 'double':
      return !path.includes('.') && isMoney(familyName, field.name) ? 'money' : 'double';
    case 'string':
      return 'text';
    case 'binfile':
      return 'any';
    default:
      return isComposite(field.type) ? 'json' : 'any';
  }
}

/**
 * The columns of a family's table: ID first (always kept), then the selected
 * fields (every field when none were selected). Names must differ from one
 * another ignoring case (both engines compare column names so), and from the
 * deleted-at column when it is kept.
 */
export function planColumns(family: ResourceFamily, selected: readonly Selected[], keepDeleted: boolean): ColumnPlan[] {
  const rest = selected.filter((s) => !(s.name === 'ID' && s.path === 'ID'));
  const columns: ColumnPlan[] = [{ name: 'ID', path: 'ID', kind: family.idType === 'int64' ? 'bigint' : 'int' }];
  const seen = new Set(['id']);
  if (keepDeleted) seen.add(DELETED_AT);
  for (const s of rest) {
    if (s.name.length === 0 || s.name.length > 200 || hasControlCharacter(s.name)) throw new UsageError(`--fields: '${shown(s.name, 60)}' cannot name a column (1 to 200 printable characters)`);
    const key = s.name.toLowerCase();
    if (seen.has(key)) {
      const why = key === 'id' ? "'ID' is the table's key, always copied" : key === DELETED_AT ? `${DELETED_AT} is the column --keep-deleted adds` : `'${shown(s.name)}' is named twice (column names ignore case)`;
      throw new UsageError(`--fields: ${why}; give that column another name (alias=path)`);
    }
    seen.add(key);
    columns.push({ name: s.name, path: s.path, kind: kindOf(family.name, s.path, fieldOfPath(family, s.path)) });
  }
  return columns;
}

/** The `fields` member of every page: alias → path, ID included. */
export function fieldsMember(columns: readonly ColumnPlan[]): Record<string, string> {
  const map: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const c of columns) map[c.name] = c.path;
  return { ...map };
}

/**
 * A value as a column stores it: null, a number, a boolean as 0/1 (for SQLite), or text.
 * `widths` (DuckDB): integers must fit the column's width (SMALLINT, INTEGER), and money is
 * the plain decimal text (no exponent) of an amount DECIMAL(38,10) holds exactly; otherwise
 * any integer a JSON number carries exactly (SQLite's INTEGER), and money the double itself
 * (SQLite's REAL holds it bit for bit). A flag is 0 or 1 (true or false), as Parquet takes it.
 */
export function cellOf(kind: ColumnKind, value: unknown, widths = false): string | number | null {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'bool':
      if (value === true || value === 1) return 1;
      if (value === false || value === 0) return 0;
      throw new NotFitting('bool');
    case 'text':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'any':
      return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : JSON.stringify(value);
    default:
      if (typeof value === 'boolean') return value ? 1 : 0;
      if (kind === 'money' && widths) return exactMoney(value);
      if (typeof value === 'number' && fits(widths || !RANGE[kind] ? kind : 'bigint', value)) return value;
      throw new NotFitting(widths || !RANGE[kind] ? kind : 'bigint');
  }
}

/** The integers each integer kind holds (bigint: those a JSON number carries exactly). */
const RANGE: Partial<Record<ColumnKind, readonly [number, number]>> = {
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
  bigint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** DuckDB's DECIMAL(38,10): 10 digits after the point, 28 before. */
const MONEY_SCALE = 10;
const MONEY_DIGITS = 28;

/**
 * An amount as DuckDB's DECIMAL(38,10) takes it: the plain decimal text (no
 * exponent, which DuckDB casts its own way) of the shortest text of the
 * service's double, so the cast is exact. An amount of 10^28 or more, or with
 * more than 10 decimal places (0.00001234567, 1e-11), would be refused or
 * rounded by the cast: it is refused here, naming the record.
 */
function exactMoney(value: unknown): string {
  const d = typeof value === 'number' ? parseDecimal(value) : undefined;
  if (!d || d.scale > MONEY_SCALE || (d.units < 0n ? -d.units : d.units) >= 10n ** BigInt(MONEY_DIGITS + d.scale)) throw new NotFitting('money');
  return formatDecimal(d);
}

function fits(kind: ColumnKind, value: number): boolean {
  const range = RANGE[kind];
  if (!range) return Number.isFinite(value);
  return Number.isInteger(value) && value >= range[0] && value <= range[1];
}

/** A value its column cannot hold (cellOf); rowCells names the record and the column. */
class NotFitting extends Error {
  constructor(readonly kind: ColumnKind) {
    const range = RANGE[kind];
    super(
      range
        ? `not ${integerFrom(range)} as the catalogue says`
        : kind === 'bool'
          ? 'not 0 or 1 as the catalogue says'
          : kind === 'money'
            ? `not an amount below 10^${MONEY_DIGITS} with at most ${MONEY_SCALE} decimal places, which DuckDB's DECIMAL(38,${MONEY_SCALE}) holds exactly`
            : 'not a number as the catalogue says',
    );
  }
}

/** The ways out of a value that does not fit, besides leaving its column out. */
interface UnfitFixes {
  /** A .sqlite copy would hold it (an integer past DuckDB's width, money finer than DECIMAL(38,10)). */
  readonly sqlite: boolean;
  /** Leaving the column out helps (not for ID, always copied). */
  readonly omittable: boolean;
  /** Exporting it as csv or ndjson is named. */
  readonly exportable: boolean;
}

/**
 * A value that does not fit its column: the record, the column, what the
 * value is and why it does not fit, and the ways out. Its message says them
 * for `svc <family> sync`; `svc sync`, which takes no --fields, says them
 * in its own words (unfitFor).
 */
export class UnfitValue extends SvcError {
  constructor(
    readonly record: string,
    readonly column: ColumnPlan,
    /** The value as the message shows it. */
    readonly excerpt: string,
    /** Why it does not fit ("not 0 or 1 as the catalogue says"). */
    readonly why: string,
    readonly fixes: UnfitFixes,
  ) {
    super(unfitLine(record, column.name, excerpt, why, fixes, 'leave it out with --fields (and --reset)'));
  }
}

function unfitLine(record: string, column: string, excerpt: string, why: string, fixes: UnfitFixes, leaveOut: string): string {
  const ways = [...(fixes.sqlite ? ['sync into a .sqlite file'] : []), ...(fixes.omittable ? [leaveOut] : []), ...(fixes.exportable ? ['export it as csv or ndjson'] : [])];
  const fix = ways.length > 1 ? `${ways.slice(0, -1).join(', ')}, or ${ways.at(-1)}` : (ways[0] ?? '');
  return `record ${record}: ${column} is ${excerpt}, ${why}; ${fix}`;
}

/**
 * The line of an UnfitValue for a run of `svc sync` (several families, no
 * --fields): the family first, and `leaveOut`, the per-family command that
 * leaves the column out (the engine builds it from the remembered settings).
 */
export function unfitFor(family: string, err: UnfitValue, leaveOut: string): SvcError {
  return new SvcError(`${family}: ${unfitLine(err.record, err.column.name, err.excerpt, err.why, err.fixes, leaveOut)}`);
}

/**
 * A record's cells in column order; a value that does not fit its column (the
 * catalogue's type) stops the sync (exit 1) with a line naming the record, the
 * column and what to do, before anything of its batch is written.
 */
export function rowCells(columns: readonly ColumnPlan[], row: Row, widths = false): (string | number | null)[] {
  return columns.map((c) => {
    try {
      return cellOf(c.kind, row[c.name], widths);
    } catch (err) {
      if (!(err instanceof NotFitting)) throw err;
      const excerpt = shown(JSON.stringify(row[c.name]) ?? String(row[c.name]), 40);
      const isId = c.path === 'ID';
      // A .sqlite copy holds any integer a JSON number carries, and money as the service's double (REAL).
      const sqlite = widths && (err.kind === 'money' || (isId && err.kind !== 'bigint'));
      throw new UnfitValue(String(row.ID), c, excerpt, err.message, { sqlite, omittable: !isId, exportable: !(isId && sqlite) });
    }
  });
}

/** Double-quoted SQL identifier (both engines): inner quotes doubled. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

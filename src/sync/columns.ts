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
    const key = s.name.toLowerCase();
    if (seen.has(key)) {
      const why = key === 'id' ? "'ID' is the table's key, always copied" : key === DELETED_AT ? `${DELETED_AT} is the column --keep-deleted adds` : `'${s.name}' is named twice (column names ignore case)`;
      throw new UsageError(`--fields: ${why}; give that column another name (alias=path)`);
    }
    if (s.name.length === 0 || s.name.length > 200 || /[\u0000-\u001f]/.test(s.name)) throw new UsageError(`--fields: '${s.name}' cannot name a column (1 to 200 printable characters)`);
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
 * `widths`: integers must fit the column's width (DuckDB's SMALLINT, INTEGER); otherwise any integer a JSON number carries exactly (SQLite's INTEGER).
 */
export function cellOf(kind: ColumnKind, value: unknown, widths = false): string | number | null {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'bool':
      return value === true || value === 1 || value === '1' || value === 'true' ? 1 : 0;
    case 'text':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'any':
      return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : JSON.stringify(value);
    default:
      if (typeof value === 'boolean') return value ? 1 : 0;
      if (typeof value === 'number' && fits(widths || !RANGE[kind] ? kind : 'bigint', value, widths)) return value;
      throw new NotFitting(widths || !RANGE[kind] ? kind : 'bigint', widths);
  }
}

/** The integers each integer kind holds (bigint: those a JSON number carries exactly). */
const RANGE: Partial<Record<ColumnKind, readonly [number, number]>> = {
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
  bigint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** DuckDB's DECIMAL(38,10) holds 28 digits before the point. */
const MONEY_LIMIT = 1e28;

function fits(kind: ColumnKind, value: number, widths = false): boolean {
  const range = RANGE[kind];
  if (kind === 'money' && widths) return Number.isFinite(value) && Math.abs(value) < MONEY_LIMIT;
  if (!range) return Number.isFinite(value);
  return Number.isInteger(value) && value >= range[0] && value <= range[1];
}

/** A value its column cannot hold (cellOf); rowCells names the record and the column. */
class NotFitting extends Error {
  constructor(readonly kind: ColumnKind, widths = false) {
    const range = RANGE[kind];
    super(`not ${range ? `an integer from ${range[0]} to ${range[1]}` : kind === 'money' && widths ? 'an amount below 10^28 (DECIMAL(38,10))' : 'a number'}`);
  }
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
      const fix = c.path === 'ID' ? (widths ? 'sync into a .sqlite file' : 'export it as csv or ndjson') : 'leave it out with --fields (and --reset), or export it as csv or ndjson';
      throw new SvcError(`record ${String(row.ID)}: ${c.name} is ${excerpt}, ${err.message} as the catalogue says; ${fix}`);
    }
  });
}

/** Double-quoted SQL identifier (both engines): inner quotes doubled. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Parquet column data as records arrive, outside the JavaScript heap: each
 * column of a page of records is its values already in PLAIN encoding (INT64
 * and DOUBLE little-endian, BYTE_ARRAY as a 4-byte length and the UTF-8
 * bytes, BOOLEAN one byte a value, packed to bits when written), with every
 * record's offset and whether it is null. A row group is cut from these at
 * any record and encoded with a few copies: no JavaScript value per cell
 * survives the page that brought it, so the garbage collector has nothing to
 * promote and memory stays flat however large the row groups.
 */
import { SvcError } from '../../errors.js';
import { toCell } from '../../output/cells.js';
import type { Row } from '../../output/view.js';
import { shown } from '../../util/shown.js';
import { EXACT_INTEGERS, integerFrom } from '../column-rules.js';
import type { ParquetColumn, ParquetKind } from '../plan.js';

/** Typed arrays use the machine's byte order; Parquet's is little-endian. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * A growing byte buffer (off the heap), on an ArrayBuffer of its own so that
 * 8-byte values written at multiples of 8 (a column of INT64 or DOUBLE) go
 * through aligned typed-array views, without a call per value.
 */
export class Bytes {
  buf: Buffer;
  len = 0;
  private f64: Float64Array;
  private u32: Uint32Array;
  private i32: Int32Array;
  constructor(size: number) {
    this.buf = Buffer.from(new ArrayBuffer(Math.max(8, Math.ceil(size / 8) * 8)));
    this.f64 = new Float64Array(this.buf.buffer);
    this.u32 = new Uint32Array(this.buf.buffer);
    this.i32 = new Int32Array(this.buf.buffer);
  }
  ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const size = Math.ceil(Math.max(this.buf.length * 2, this.len + extra) / 8) * 8;
    const next = Buffer.from(new ArrayBuffer(size));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
    this.f64 = new Float64Array(next.buffer);
    this.u32 = new Uint32Array(next.buffer);
    this.i32 = new Int32Array(next.buffer);
  }
  /** A safe integer as a little-endian INT64 (two 32-bit halves: no BigInt per value). Only in a buffer of 8-byte values. */
  int64(v: number): void {
    this.ensure(8);
    const hi = Math.floor(v / 0x1_0000_0000);
    if (LITTLE_ENDIAN) {
      const at = this.len >> 2;
      this.u32[at] = v - hi * 0x1_0000_0000;
      this.i32[at + 1] = hi;
    } else {
      this.buf.writeUInt32LE(v - hi * 0x1_0000_0000, this.len);
      this.buf.writeInt32LE(hi, this.len + 4);
    }
    this.len += 8;
  }
  /** A little-endian DOUBLE. Only in a buffer of 8-byte values. */
  double(v: number): void {
    this.ensure(8);
    if (LITTLE_ENDIAN) this.f64[this.len >> 3] = v;
    else this.buf.writeDoubleLE(v, this.len);
    this.len += 8;
  }
  byte(v: number): void {
    if (this.len >= this.buf.length) this.ensure(1);
    this.buf[this.len++] = v;
  }
  /** A BYTE_ARRAY value: its UTF-8 length, then its UTF-8 bytes (a lone surrogate becomes U+FFFD, as in the CSV). */
  text(s: string): void {
    const room = s.length <= 65_536 ? s.length * 3 : Buffer.byteLength(s, 'utf8');
    this.ensure(4 + room);
    const n = this.buf.write(s, this.len + 4, 'utf8');
    this.buf.writeUInt32LE(n, this.len);
    this.len += 4 + n;
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** One column of a page: PLAIN values of the non-null records, each record's start offset, and 1 (present) or 0 (null). */
export interface ColumnPart {
  readonly values: Bytes;
  /** offsets[r]: where record r's value starts (offsets[count]: the end). */
  offsets: Int32Array;
  defined: Uint8Array;
}

/** A page of records as column parts, with each record's ID and encoded size. */
export interface ColumnPage {
  readonly parts: ColumnPart[];
  ids: Float64Array;
  sizes: Int32Array;
  count: number;
}

/** A value that cannot go into its column: the export stops (exit 1) saying which, and how to export it anyway. */
function badValue(column: ParquetColumn, row: Row, idKey: string, value: unknown): SvcError {
  // INT64 takes the integers a JSON number carries exactly (the words sync uses): 2^62 arrives as an integer, just not exactly.
  const expected = column.kind === 'int64' ? integerFrom(EXACT_INTEGERS) : column.kind === 'double' ? 'a number' : column.kind === 'boolean' ? '0 or 1' : 'text';
  const excerpt = shown(JSON.stringify(value) ?? String(value), 40);
  return new SvcError(
    `record ${shown(String(row[idKey]), 40)}: ${shown(column.name, 80)} is ${excerpt}, not ${expected} as the catalogue says; export it as csv or ndjson, or leave it out with --fields`,
  );
}

/** Appends one (non-null) value of a column's kind to `out`; false when it does not fit the kind. */
type Put = (v: unknown, out: Bytes) => boolean;

const puts: Readonly<Record<ParquetKind, Put>> = {
  int64(v, out) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return false;
    out.int64(v);
    return true;
  },
  double(v, out) {
    if (typeof v !== 'number') return false;
    out.double(v);
    return true;
  },
  boolean(v, out) {
    if (v === 0 || v === false) out.byte(0);
    else if (v === 1 || v === true) out.byte(1);
    else return false;
    return true;
  },
  string(v, out) {
    out.text(typeof v === 'string' ? v : toCell(v));
    return true;
  },
};

/** A record's own value under `name` (a field named like an Object.prototype member reads as absent unless the record has it). */
function valueOf(row: Row, name: string): unknown {
  const v: unknown = row[name];
  if ((typeof v === 'function' || v === Object.prototype) && !Object.hasOwn(row, name)) return undefined;
  return v;
}

const FIRST = 1024;

function grow<T extends Int32Array | Float64Array | Uint8Array>(a: T, need: number, make: (n: number) => T): T {
  if (need <= a.length) return a;
  const next = make(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

/** A new, empty page of the columns. */
function newPage(columns: readonly ParquetColumn[]): ColumnPage {
  return {
    parts: columns.map((c) => ({
      values: new Bytes(c.kind === 'string' ? 16 * 1024 : 8 * FIRST),
      offsets: new Int32Array(FIRST + 1),
      defined: new Uint8Array(FIRST),
    })),
    ids: new Float64Array(FIRST),
    sizes: new Int32Array(FIRST),
    count: 0,
  };
}

/** Pages kept for reuse at most: more than a row group and the pages fetched ahead hold at once. */
const POOL_MAX = 64;

/**
 * Pages whose records are written, reused for the next ones: their buffers
 * (grown to what pages need) are not allocated and collected again, so a long
 * export keeps the same few megabytes.
 */
export class PagePool {
  private readonly free: ColumnPage[] = [];
  constructor(private readonly columns: readonly ParquetColumn[]) {}
  take(): ColumnPage {
    const page = this.free.pop();
    if (!page) return newPage(this.columns);
    page.count = 0;
    for (const part of page.parts) part.values.len = 0;
    return page;
  }
  /** A page none of whose records are waiting to be written. */
  give(page: ColumnPage): void {
    if (this.free.length < POOL_MAX) this.free.push(page);
  }
}

/** A digest that turns a page's records into column parts as they arrive. */
export function columnDigest(columns: readonly ParquetColumn[], idKey: string, pool?: PagePool): { add(row: Row): void; finish(): ColumnPage } {
  const page = pool ? pool.take() : newPage(columns);
  const n = columns.length;
  const put = columns.map((c) => puts[c.kind]);
  return {
    add(row) {
      const r = page.count;
      if (r + 1 >= page.ids.length) {
        page.ids = grow(page.ids, r + 2, (k) => new Float64Array(k));
        page.sizes = grow(page.sizes, r + 2, (k) => new Int32Array(k));
      }
      let size = 0;
      for (let i = 0; i < n; i++) {
        const c = columns[i] as ParquetColumn;
        const part = page.parts[i] as ColumnPart;
        if (r + 2 > part.offsets.length) part.offsets = grow(part.offsets, r + 2, (k) => new Int32Array(k));
        if (r + 1 > part.defined.length) part.defined = grow(part.defined, r + 1, (k) => new Uint8Array(k));
        const before = part.values.len;
        const v = valueOf(row, c.name);
        if (v === null || v === undefined) {
          if (!c.nullable) throw badValue(c, row, idKey, null);
          part.defined[r] = 0;
        } else {
          if (!(put[i] as Put)(v, part.values)) throw badValue(c, row, idKey, v);
          part.defined[r] = 1;
        }
        part.offsets[r + 1] = part.values.len;
        size += part.values.len - before + 1;
      }
      page.ids[r] = Number(row[idKey]);
      page.sizes[r] = size;
      page.count = r + 1;
    },
    finish: () => page,
  };
}

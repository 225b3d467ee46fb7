/**
 * One row group from column parts (pages.ts): for every column, its values
 * cut into data pages (DATA_PAGE v1, PLAIN values, definition levels in the
 * RLE/bit-packed hybrid) of about PAGE_BYTES each, and the column chunk's
 * metadata (offsets, sizes, null count, min and max of integer columns)
 * for the footer (footer.ts). The page headers are Thrift structures written
 * by hyparquet-writer (writePageHeader, loaded lazily: libs.ts); the levels
 * and values are ours.
 */
import type { ParquetColumn } from '../plan.js';
import type { ChunkMeta, Codec, GroupMeta } from './footer.js';
import { parquetLibs, type ParquetLibs } from './libs.js';
import { Bytes, LITTLE_ENDIAN, type ColumnPage } from './pages.js';

/** Bytes of values a data page holds (before the one that passes it). */
const PAGE_BYTES = 1024 * 1024;

/** A stretch of a page's records: [from, to). */
export interface Slice {
  readonly page: ColumnPage;
  readonly from: number;
  readonly to: number;
}

/** An unsigned LEB128 number (the hybrid encoding's run headers). */
function uvarint(out: Bytes, n: number): void {
  let v = n;
  while (v >= 0x80) {
    out.byte((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.byte(v);
}

/**
 * Definition levels (bit width 1) of `defs` as a data page (v1) holds them:
 * their length in 4 bytes, then one RLE run when all are present, else
 * bit-packed groups of eight.
 */
function levels(defs: Uint8Array, nulls: number): Bytes {
  const out = new Bytes(16 + (defs.length >> 3));
  out.len = 4;
  if (nulls === 0) {
    uvarint(out, defs.length * 2);
    out.byte(1);
  } else {
    uvarint(out, Math.ceil(defs.length / 8) * 2 + 1);
    packBits(defs, out);
  }
  out.buf.writeUInt32LE(out.len - 4, 0);
  return out;
}

/** 0/1 bytes packed eight to a byte, first value in the lowest bit. */
function packBits(bits: Uint8Array, out: Bytes): void {
  const n = Math.ceil(bits.length / 8);
  out.ensure(n);
  for (let g = 0; g < n; g++) {
    let b = 0;
    for (let k = 0; k < 8; k++) b |= (bits[g * 8 + k] ?? 0) << k;
    out.buf[out.len++] = b;
  }
}

/** One column of a row group: its values (PLAIN) and definitions, gathered from the slices. */
function gather(slices: readonly Slice[], i: number, rows: number): { values: Buffer; offsets: Int32Array; defined: Uint8Array } {
  let bytes = 0;
  for (const s of slices) {
    const part = s.page.parts[i];
    if (part) bytes += (part.offsets[s.to] as number) - (part.offsets[s.from] as number);
  }
  // On an ArrayBuffer of its own: INT64 bounds read it through aligned views.
  const values = Buffer.from(new ArrayBuffer(bytes));
  const offsets = new Int32Array(rows + 1);
  const defined = new Uint8Array(rows);
  let at = 0;
  let r = 0;
  for (const s of slices) {
    const part = s.page.parts[i];
    if (!part) continue;
    const start = part.offsets[s.from] as number;
    part.values.buf.copy(values, at, start, part.offsets[s.to] as number);
    defined.set(part.defined.subarray(s.from, s.to), r);
    const shift = at - start;
    const src = part.offsets;
    for (let k = s.from; k < s.to; k++) offsets[r++] = (src[k] as number) + shift;
    at += (part.offsets[s.to] as number) - start;
  }
  offsets[rows] = at;
  return { values, offsets, defined };
}

/** Min and max of an INT64 column's values (little-endian). */
function int64Bounds(values: Buffer): { min: number; max: number } | undefined {
  if (values.length < 8) return undefined;
  let lo = Infinity;
  let hi = -Infinity;
  const aligned = values.byteOffset % 8 === 0 && LITTLE_ENDIAN;
  const u32 = aligned ? new Uint32Array(values.buffer, values.byteOffset, values.length >> 2) : undefined;
  const i32 = aligned ? new Int32Array(values.buffer, values.byteOffset, values.length >> 2) : undefined;
  for (let at = 0; at < values.length; at += 8) {
    // Safe integers: the two halves make one number exactly.
    const v = u32 && i32 ? (i32[(at >> 2) + 1] as number) * 0x1_0000_0000 + (u32[at >> 2] as number) : values.readInt32LE(at + 4) * 0x1_0000_0000 + values.readUInt32LE(at);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return { min: lo, max: hi };
}

export type Compress = (data: Buffer) => Promise<Buffer>;

export interface EncodedGroup {
  /** The column chunks' bytes, one after the other. */
  readonly bytes: Buffer;
  readonly group: GroupMeta;
}

/** A data page before compression: its records [from, to), nulls, definition levels and PLAIN values. */
interface PageData {
  readonly from: number;
  readonly to: number;
  readonly nulls: number;
  readonly levels: Bytes | undefined;
  readonly data: Buffer;
}

/** A column's records cut into data pages of about PAGE_BYTES of values. */
function cutPages(column: ParquetColumn, col: { values: Buffer; offsets: Int32Array; defined: Uint8Array }, rows: number): PageData[] {
  const { values, offsets, defined } = col;
  const pages: PageData[] = [];
  for (let from = 0; from < rows; ) {
    let to = from + 1;
    const limit = (offsets[from] as number) + PAGE_BYTES;
    while (to < rows && (offsets[to] as number) < limit) to++;
    const defs = defined.subarray(from, to);
    let nulls = 0;
    if (column.nullable) for (let k = 0; k < defs.length; k++) nulls += (defs[k] as number) ^ 1;
    let data = values.subarray(offsets[from] as number, offsets[to] as number);
    if (column.kind === 'boolean') {
      const packed = new Bytes(Math.ceil(data.length / 8) + 1);
      packBits(data, packed);
      data = packed.bytes();
    }
    pages.push({ from, to, nulls, levels: column.nullable ? levels(defs, nulls) : undefined, data });
    from = to;
  }
  return pages;
}

/**
 * A data page's header (DATA_PAGE, version 1: what every reader takes, Spark
 * and Hive included; its body is the definition levels then the values,
 * compressed together).
 */
function pageHeader(libs: ParquetLibs, page: PageData, stored: number): Uint8Array {
  const out = new libs.ByteWriter(64);
  libs.writePageHeader(out, {
    type: 'DATA_PAGE',
    uncompressed_page_size: (page.levels?.len ?? 0) + page.data.length,
    compressed_page_size: stored,
    data_page_header: {
      num_values: page.to - page.from,
      encoding: 'PLAIN',
      definition_level_encoding: 'RLE',
      repetition_level_encoding: 'RLE', // there are none
    },
  });
  return out.getBytes();
}

/**
 * Encodes the records of `slices` (`rows` in all) as one row group whose
 * first byte lands at file offset `base`. Pages are compressed all at once
 * (zlib works on its own threads).
 */
export async function encodeRowGroup(
  columns: readonly ParquetColumn[],
  slices: readonly Slice[],
  rows: number,
  base: number,
  codec: Codec,
  compress: Compress,
): Promise<EncodedGroup> {
  const libs = await parquetLibs();
  const gathered = columns.map((_, i) => gather(slices, i, rows));
  const columnPages = columns.map((column, i) => cutPages(column, gathered[i] as ReturnType<typeof gather>, rows));
  const body = (p: PageData): Buffer => (p.levels ? Buffer.concat([p.levels.bytes(), p.data]) : p.data);
  const stored = await Promise.all(columnPages.map((pages) => Promise.all(pages.map((p) => (codec === 'UNCOMPRESSED' ? undefined : compress(body(p)))))));
  const parts: Uint8Array[] = [];
  const metas: ChunkMeta[] = [];
  let offset = base;
  columns.forEach((column, i) => {
    const pages = columnPages[i] as PageData[];
    const packed = stored[i] as (Buffer | undefined)[];
    let compressed = 0;
    let uncompressed = 0;
    let nulls = 0;
    pages.forEach((page, k) => {
      const raw = (page.levels?.len ?? 0) + page.data.length;
      const zipped = packed[k];
      const header = pageHeader(libs, page, zipped ? zipped.length : raw);
      parts.push(header);
      if (zipped) parts.push(zipped);
      else {
        if (page.levels) parts.push(page.levels.bytes());
        parts.push(page.data);
      }
      compressed += header.length + (zipped ? zipped.length : raw);
      uncompressed += header.length + raw;
      nulls += page.nulls;
    });
    const bounds = column.kind === 'int64' ? int64Bounds((gathered[i] as ReturnType<typeof gather>).values) : undefined;
    metas.push({ offset, compressed, uncompressed, nulls, pages: pages.length, ...(bounds ?? {}) });
    offset += compressed;
  });
  return { bytes: Buffer.concat(parts, offset - base), group: { rows, columns: metas } };
}

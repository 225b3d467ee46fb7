/**
 * A Parquet file's frame: the magic number at the start, and the footer
 * after the last row group: the FileMetaData (schema, row groups with their
 * column chunks' offsets, sizes and statistics) in the Thrift compact
 * protocol, its length, and the magic number again.
 *
 * Row groups are described by plain numbers (GroupMeta), which a checkpoint
 * keeps as JSON: a resumed run writes the footer the first run would have.
 * The Thrift encoding is hyparquet-writer's (writeMetadata), loaded when the
 * footer is written (libs.ts); this module's checkpoint check loads nothing.
 */
import type { ParquetColumn } from '../plan.js';
import { parquetLibs, type FileMetaData } from './libs.js';

export const MAGIC = Buffer.from('PAR1', 'latin1');

export type Codec = 'UNCOMPRESSED' | 'GZIP';

/** One column chunk of a row group. */
export interface ChunkMeta {
  /** File offset of its first page. */
  readonly offset: number;
  readonly compressed: number;
  readonly uncompressed: number;
  readonly nulls: number;
  readonly pages: number;
  /** Smallest and largest value of an integer column (absent: not kept, or every value null). */
  readonly min?: number;
  readonly max?: number;
}

/** One row group: its records, and its column chunks in column order. */
export interface GroupMeta {
  readonly rows: number;
  readonly columns: readonly ChunkMeta[];
}

type SchemaElement = FileMetaData['schema'][number];

/** Parquet's physical type of each kind of column. */
const TYPE = { int64: 'INT64', double: 'DOUBLE', boolean: 'BOOLEAN', string: 'BYTE_ARRAY' } as const;

/** Whether a parsed checkpoint's row group has the shape GroupMeta says, for `columns` columns. */
export function isGroupMeta(g: unknown, columns: number): g is GroupMeta {
  const count = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (typeof g !== 'object' || g === null) return false;
  const { rows, columns: chunks } = g as Partial<GroupMeta>;
  return (
    count(rows) &&
    Array.isArray(chunks) &&
    chunks.length === columns &&
    chunks.every(
      (c: Partial<ChunkMeta>) =>
        typeof c === 'object' && c !== null && count(c.offset) && count(c.compressed) && count(c.uncompressed) && count(c.nulls) && count(c.pages) &&
        (c.min === undefined || Number.isSafeInteger(c.min)) && (c.max === undefined || Number.isSafeInteger(c.max)),
    )
  );
}

/**
 * The footer of a file holding `groups` of `columns`: FileMetaData (in
 * Thrift's compact protocol, by hyparquet-writer), its length, the magic
 * number.
 */
export async function footer(columns: readonly ParquetColumn[], groups: readonly GroupMeta[], codec: Codec, createdBy: string): Promise<Buffer> {
  const { writeMetadata, ByteWriter } = await parquetLibs();
  const schema: SchemaElement[] = [
    { name: 'schema', num_children: columns.length },
    ...columns.map((c): SchemaElement => ({
      type: TYPE[c.kind],
      repetition_type: c.nullable ? 'OPTIONAL' : 'REQUIRED',
      name: c.name,
      ...(c.kind === 'string' ? { converted_type: 'UTF8', logical_type: { type: 'STRING' } } : {}),
    })),
  ];
  const metadata: FileMetaData = {
    version: 2,
    schema,
    num_rows: BigInt(groups.reduce((n, g) => n + g.rows, 0)),
    row_groups: groups.map((g) => ({
      columns: g.columns.map((chunk, i) => {
        const c = columns[i] as ParquetColumn;
        return {
          file_offset: BigInt(chunk.offset),
          meta_data: {
            type: TYPE[c.kind],
            encodings: c.nullable ? ['PLAIN', 'RLE'] : ['PLAIN'],
            path_in_schema: [c.name],
            codec,
            num_values: BigInt(g.rows),
            total_uncompressed_size: BigInt(chunk.uncompressed),
            total_compressed_size: BigInt(chunk.compressed),
            data_page_offset: BigInt(chunk.offset),
            // min_value/max_value (not the deprecated min/max): the column orders below say how they compare.
            statistics: {
              null_count: BigInt(chunk.nulls),
              ...(chunk.min !== undefined && chunk.max !== undefined ? { max_value: chunk.max, min_value: chunk.min } : {}),
            },
            encoding_stats: [{ page_type: 'DATA_PAGE', encoding: 'PLAIN', count: chunk.pages }],
          },
        };
      }),
      total_byte_size: BigInt(g.columns.reduce((n, c) => n + c.uncompressed, 0)),
      num_rows: BigInt(g.rows),
      file_offset: BigInt(g.columns[0]?.offset ?? 0),
      total_compressed_size: BigInt(g.columns.reduce((n, c) => n + c.compressed, 0)),
    })),
    created_by: createdBy,
    // What a reader found; a writer's is the length writeMetadata writes after the structure.
    metadata_length: 0,
  };
  // writeMetadata also writes every column's column order (TYPE_ORDER), so readers may use min_value/max_value.
  const out = new ByteWriter(1024 + groups.length * columns.length * 64);
  writeMetadata(out, metadata);
  out.appendBytes(MAGIC);
  return Buffer.from(out.buffer, 0, out.index);
}

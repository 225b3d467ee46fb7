/**
 * What an export asks for, independent of how it runs: the family, the query
 * body parts (filter, fields), the output format and the ID ranges. A
 * checkpoint stores this, so a resumed export sends exactly the same requests.
 */
import { createHash } from 'node:crypto';

/** The formats an export writes. */
export type ExportFormat = 'csv' | 'ndjson' | 'json' | 'parquet';

/** The formats `--format` takes, in help order. */
export const exportFormats: readonly ExportFormat[] = ['csv', 'ndjson', 'json', 'parquet'];

/**
 * A Parquet column's physical kind, from the catalogue's field type: integers
 * (IDs, timestamps in Unix seconds, int16/32/64) as INT64, doubles as DOUBLE,
 * flags (0/1) as BOOLEAN, everything else (text, JSON values, paths the
 * catalogue does not know) as UTF-8 text, written as the CSV cell would be.
 */
export type ParquetKind = 'int64' | 'double' | 'boolean' | 'string';

/** One Parquet column: its name (the CSV header's), kind, and whether it may hold nulls. */
export interface ParquetColumn {
  readonly name: string;
  readonly kind: ParquetKind;
  readonly nullable: boolean;
}

/** CSV layout (from the global --no-header, --delimiter and --crlf). */
export interface CsvLayout {
  readonly header: boolean;
  readonly delimiter: string;
  readonly eol: '\n' | '\r\n';
}

/** One ID range of an export: IDs above `after` up to `upTo` (null: no upper bound). */
export interface IdRange {
  readonly after: number;
  readonly upTo: number | null;
}

/** `--shard K/N`: the K-th (1-based) of N ID ranges. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The query and output an export is made of; a checkpoint keeps it verbatim. */
export interface ExportRequest {
  readonly family: string;
  readonly filterMember: 'filter' | 'filters';
  readonly filter?: Record<string, unknown>;
  /** The service's text search (`query` member), when asked. */
  readonly search?: string;
  /** The `fields` member as the user selected it (absent: every field). */
  readonly fields?: readonly string[] | Readonly<Record<string, string>>;
  /** Column names, in order (the CSV header). */
  readonly columns: readonly string[];
  readonly format: ExportFormat;
  readonly csv: CsvLayout;
  readonly shard?: Shard;
  /** The Parquet schema (format parquet only), fixed when the export starts: a resumed run writes the same. */
  readonly parquet?: readonly ParquetColumn[];
  /** How Parquet pages are compressed (absent: not at all, as in checkpoints made before there was a choice). */
  readonly codec?: 'GZIP' | 'UNCOMPRESSED';
}

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A fingerprint of what the user asked for (flags as typed), to match a checkpoint to its command. */
export function requestKey(asked: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(asked)).digest('hex');
}

/** At most this many shards. */
export const MAX_SHARDS = 1000;

/** Parses `--shard K/N` (1 <= K <= N <= 1000). */
export function parseShard(text: string): Shard | undefined {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index >= 1 && count >= 1 && index <= count && count <= MAX_SHARDS ? { index, count } : undefined;
}

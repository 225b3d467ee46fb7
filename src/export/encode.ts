/**
 * Records to text: CSV (RFC 4180, the header of column names, null empty,
 * nested values as JSON text), NDJSON (one compact object a line) or JSON
 * (one array, one record a line). A record's text does not depend on where
 * it lands, so records are encoded as they arrive (the parsed record is
 * dropped at once) and a resumed export writes the same bytes as an
 * uninterrupted one; only the very first page of a JSON array is adjusted
 * (see `first`).
 */
import { createCsvRecordWriter, csvLine } from '../output/csv.js';
import type { Row } from '../output/view.js';
import type { ExportRequest } from './plan.js';

export interface Encoder {
  /** What comes before the first record (the CSV header; nothing for a later shard). */
  head(): string;
  /** One record's text. */
  record(row: Row): string;
  /** The bytes of the export's first non-empty page, as they are written (JSON opens its array there). */
  first(bytes: Buffer): Buffer;
  /** What comes after the last record. */
  tail(total: number): string;
}

const asIs = (bytes: Buffer): Buffer => bytes;

function csvEncoder(req: ExportRequest): Encoder {
  const { delimiter, eol } = req.csv;
  const firstShard = !req.shard || req.shard.index === 1;
  return {
    head: () => (req.csv.header && firstShard ? csvLine(req.columns, delimiter, eol) : ''),
    record: createCsvRecordWriter(req.columns, delimiter, eol),
    first: asIs,
    tail: () => '',
  };
}

const ndjsonEncoder: Encoder = {
  head: () => '',
  record: (row) => `${JSON.stringify(row)}\n`,
  first: asIs,
  tail: () => '',
};

/** Every record follows ",\n"; the first one follows "[\n" instead. */
const jsonEncoder: Encoder = {
  head: () => '',
  record: (row) => `,\n${JSON.stringify(row)}`,
  first: (bytes) => Buffer.concat([Buffer.from('['), bytes.subarray(1)]),
  tail: (total) => (total === 0 ? '[]\n' : '\n]\n'),
};

/** The encoder of an export's format. */
export function createEncoder(req: ExportRequest): Encoder {
  if (req.format === 'csv') return csvEncoder(req);
  return req.format === 'ndjson' ? ndjsonEncoder : jsonEncoder;
}

/** A record without the ID that was fetched only for paging. */
export function withoutKey(row: Row, key: string): Row {
  const { [key]: _dropped, ...rest } = row;
  return rest;
}

/**
 * Records to bytes, a page at a time: CSV (RFC 4180, the header of column
 * names, null empty, nested values as JSON text), NDJSON (one compact object
 * a line) or JSON (one array, one record a line). A page's text does not
 * depend on where it lands, so pages are encoded as they arrive (the parsed
 * records are dropped at once) and a resumed export writes the same bytes as
 * an uninterrupted one; only the very first page of a JSON array is adjusted
 * (see `first`).
 */
import { createCsvRecordWriter, csvLine } from '../output/csv.js';
import type { Row } from '../output/view.js';
import type { ExportRequest } from './plan.js';

export interface Encoder {
  /** What comes before the first record (the CSV header; nothing for a later shard). */
  head(): string;
  /** One page of records. */
  page(rows: readonly Row[]): string;
  /** The text of the export's first non-empty page, as it is written (JSON opens its array there). */
  first(text: string): string;
  /** What comes after the last record. */
  tail(total: number): string;
}

const asIs = (text: string): string => text;

function csvEncoder(req: ExportRequest): Encoder {
  const { delimiter, eol } = req.csv;
  const firstShard = !req.shard || req.shard.index === 1;
  const record = createCsvRecordWriter(req.columns, delimiter, eol);
  return {
    head: () => (req.csv.header && firstShard ? csvLine(req.columns, delimiter, eol) : ''),
    page: (rows) => {
      let text = '';
      for (const row of rows) text += record(row);
      return text;
    },
    first: asIs,
    tail: () => '',
  };
}

const ndjsonEncoder: Encoder = {
  head: () => '',
  page: (rows) => {
    let text = '';
    for (const row of rows) text += `${JSON.stringify(row)}\n`;
    return text;
  },
  first: asIs,
  tail: () => '',
};

/** Every record follows ",\n"; the first one follows "[\n" instead. */
const jsonEncoder: Encoder = {
  head: () => '',
  page: (rows) => {
    let text = '';
    for (const row of rows) text += `,\n${JSON.stringify(row)}`;
    return text;
  },
  first: (text) => `[${text.slice(1)}`,
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

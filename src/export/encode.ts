/**
 * Records to bytes, a page at a time: CSV (RFC 4180, the
 * header of column names, null empty, nested values as JSON text), NDJSON
 * (one compact object a line) or JSON (one array, one record a line). The
 * text of a page depends only on the rows written before it, so a resumed
 * export writes the same bytes as an uninterrupted one.
 */
import { toCell } from '../output/cells.js';
import { csvLine } from '../output/csv.js';
import type { Row } from '../output/view.js';
import type { ExportRequest } from './plan.js';

export interface Encoder {
  /** What comes before the first record (the CSV header; nothing for a later shard). */
  head(): string;
  /** One page of records; `before` is how many records were written earlier. */
  page(rows: readonly Row[], before: number): string;
  /** What comes after the last record. */
  tail(total: number): string;
}

function csvEncoder(req: ExportRequest): Encoder {
  const { delimiter, eol } = req.csv;
  const firstShard = !req.shard || req.shard.index === 1;
  return {
    head: () => (req.csv.header && firstShard ? csvLine(req.columns, delimiter, eol) : ''),
    page: (rows) => rows.map((row) => csvLine(req.columns.map((c) => toCell(row[c])), delimiter, eol)).join(''),
    tail: () => '',
  };
}

const ndjsonEncoder: Encoder = {
  head: () => '',
  page: (rows) => rows.map((row) => `${JSON.stringify(row)}\n`).join(''),
  tail: () => '',
};

const jsonEncoder: Encoder = {
  head: () => '',
  page: (rows, before) => rows.map((row, i) => `${before + i === 0 ? '[\n' : ',\n'}${JSON.stringify(row)}`).join(''),
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

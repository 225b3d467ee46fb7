import { stringify } from 'csv-stringify/sync';
import type { OutStream } from '../cli/deps.js';
import { cellText } from './cells.js';
import type { Column, Row } from './view.js';

/**
 * Streams rows as RFC 4180 CSV with a header line: comma-separated, quoted
 * where needed, CRLF-free (LF line ends), null as an empty field.
 */
export async function writeCsvRows(
  out: OutStream,
  columns: readonly Column[],
  rows: Iterable<Row> | AsyncIterable<Row>,
): Promise<void> {
  out.write(stringify([columns.map((c) => c.header ?? c.key)]));
  for await (const row of rows) {
    out.write(stringify([columns.map((c) => cellText(row, c))]));
  }
}

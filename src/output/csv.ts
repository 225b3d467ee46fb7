import { stringify } from 'csv-stringify/sync';
import type { OutStream } from '../cli/deps.js';
import { cellText } from './cells.js';
import type { Column, Row } from './view.js';

export interface DelimitedOptions {
  /** Write the header line (default true). */
  readonly header?: boolean;
  /** Field separator for CSV (default ','; the service's own export uses ';'). */
  readonly delimiter?: string;
  /** Line ending (default LF). */
  readonly eol?: '\n' | '\r\n';
}

/**
 * Streams rows as RFC 4180 CSV (csv-stringify): a header line of the column
 * names, fields quoted where needed, null as an empty field, nested values as
 * JSON text.
 */
export async function writeCsvRows(
  out: OutStream,
  columns: readonly Column[],
  rows: Iterable<Row> | AsyncIterable<Row>,
  opts: DelimitedOptions = {},
): Promise<void> {
  const options = { delimiter: opts.delimiter ?? ',', record_delimiter: opts.eol === '\r\n' ? 'windows' : 'unix' } as const;
  if (opts.header !== false) out.write(stringify([columns.map((c) => c.header ?? c.key)], options));
  for await (const row of rows) out.write(stringify([columns.map((c) => cellText(row, c))], options));
}

/** Escapes a TSV field: backslash, tab, CR and LF become \\, \t, \r, \n (the PostgreSQL text convention). */
export function tsvField(text: string): string {
  return text.replace(/[\\\t\r\n]/g, (ch) => ({ '\\': '\\\\', '\t': '\\t', '\r': '\\r', '\n': '\\n' })[ch] ?? ch);
}

/** Streams rows as tab-separated values, one record a line, escapes instead of quotes. */
export async function writeTsvRows(
  out: OutStream,
  columns: readonly Column[],
  rows: Iterable<Row> | AsyncIterable<Row>,
  opts: DelimitedOptions = {},
): Promise<void> {
  const eol = opts.eol ?? '\n';
  if (opts.header !== false) out.write(`${columns.map((c) => tsvField(c.header ?? c.key)).join('\t')}${eol}`);
  for await (const row of rows) out.write(`${columns.map((c) => tsvField(cellText(row, c))).join('\t')}${eol}`);
}

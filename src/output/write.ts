import type { OutStream } from './io.js';
import type { OutputFormat } from './format.js';
import type { JqSettings } from './jq.js';
import { jsonLine, writeJsonRows, writeJsonValue, writeNdjsonRows } from './json.js';
import type { Pager } from './pager.js';
import type { ObjectView, RecordsView, Row, View } from './view.js';

export interface WriteOptions {
  readonly format: OutputFormat;
  readonly color: boolean;
  /** Header line for table, csv and tsv (default true). */
  readonly header?: boolean;
  /** CSV field separator (default ','). */
  readonly delimiter?: string;
  readonly eol?: '\n' | '\r\n';
  /** `--jq`: JSON output goes through the expression (src/output/jq.ts). */
  readonly jq?: JqSettings;
  /** A table for a terminal goes through this pager (src/output/pager.ts), when it starts. */
  readonly pager?: Pager;
}

async function collect(rows: Iterable<Row> | AsyncIterable<Row>): Promise<Row[]> {
  const all: Row[] = [];
  for await (const r of rows) all.push(r);
  return all;
}

async function writeRecords(out: OutStream, view: RecordsView, opts: WriteOptions): Promise<void> {
  switch (opts.format) {
    case 'json':
      return writeJsonRows(out, view.rows);
    case 'ndjson':
      return writeNdjsonRows(out, view.rows);
    case 'csv':
    case 'tsv': {
      const { writeCsvRows, writeTsvRows } = await import('./csv.js');
      return (opts.format === 'csv' ? writeCsvRows : writeTsvRows)(out, view.columns, view.rows, opts);
    }
    case 'table': {
      const { writeTable } = await import('./table.js');
      return writeTable(out, view.columns, await collect(view.rows), { color: opts.color, width: out.columns, header: opts.header });
    }
  }
}

/** A plain object's members (not an array, not null). */
function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function writeObject(out: OutStream, view: ObjectView, opts: WriteOptions): Promise<void> {
  switch (opts.format) {
    case 'json':
      return writeJsonValue(out, view.value);
    case 'ndjson':
      out.write(`${jsonLine(out)(view.value)}\n`);
      return;
    case 'csv':
    case 'tsv': {
      const { writeCsvRows, writeTsvRows } = await import('./csv.js');
      const write = opts.format === 'csv' ? writeCsvRows : writeTsvRows;
      // The table's rows when they are the data (describe's fields); else the whole object, field by field (whoami's
      // permissions one value among the others).
      if (view.table && view.csv !== 'value') return write(out, view.table.columns, view.table.rows, opts);
      // The values themselves, as JSON gives them (numbers, not the table's names and local dates); labelled text only for a value that is no object.
      const rows = isPlainObject(view.value)
        ? Object.entries(view.value).map(([field, value]) => ({ field, value }))
        : view.details.map(([field, value]) => ({ field, value }));
      return write(out, [{ key: 'field' }, { key: 'value' }], rows, opts);
    }
    case 'table': {
      const { renderDetails, writeTable } = await import('./table.js');
      const style = { color: opts.color, width: out.columns };
      out.write(renderDetails(view.details, style));
      if (view.table) {
        out.write(`\n${view.table.title}:\n`);
        return writeTable(out, view.table.columns, view.table.rows, style);
      }
    }
  }
}

/** Collects what is written, for the pager; a terminal as `out` is. */
function buffer(out: OutStream): OutStream & { text: string } {
  return {
    text: '',
    isTTY: out.isTTY,
    columns: out.columns,
    write(chunk) {
      this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    },
  };
}

/**
 * Writes a view to stdout in the chosen format. The only path from commands to stdout.
 * With `jq`, JSON output goes through the expression; with `pager`, a table on a terminal
 * goes through the pager (written directly when it cannot start).
 */
export async function writeView(out: OutStream, view: View, opts: WriteOptions): Promise<void> {
  if (opts.jq) return (await import('./jq.js')).writeJqView(out, view, opts.format, opts.jq);
  if (opts.pager && opts.format === 'table' && view.kind !== 'text' && out.isTTY) {
    const held = buffer(out);
    await writeFormatted(held, view, opts);
    if (!(await opts.pager(held.text))) out.write(held.text);
    return;
  }
  return writeFormatted(out, view, opts);
}

async function writeFormatted(out: OutStream, view: View, opts: WriteOptions): Promise<void> {
  if (view.kind === 'text') {
    out.write(view.text.endsWith('\n') ? view.text : `${view.text}\n`);
    return;
  }
  if (view.kind === 'records') return writeRecords(out, view, opts);
  return writeObject(out, view, opts);
}

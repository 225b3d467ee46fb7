import type { OutStream } from '../cli/deps.js';
import type { OutputFormat } from './format.js';
import { writeJsonRows, writeJsonValue, writeNdjsonRows } from './json.js';
import type { ObjectView, RecordsView, Row, View } from './view.js';

export interface WriteOptions {
  readonly format: OutputFormat;
  readonly color: boolean;
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
    case 'csv': {
      const { writeCsvRows } = await import('./csv.js');
      return writeCsvRows(out, view.columns, view.rows);
    }
    case 'table': {
      const { renderTable } = await import('./table.js');
      out.write(renderTable(view.columns, await collect(view.rows), { color: opts.color, width: out.columns }));
    }
  }
}

async function writeObject(out: OutStream, view: ObjectView, opts: WriteOptions): Promise<void> {
  switch (opts.format) {
    case 'json':
      return writeJsonValue(out, view.value);
    case 'ndjson':
      out.write(`${JSON.stringify(view.value)}\n`);
      return;
    case 'csv': {
      const { writeCsvRows } = await import('./csv.js');
      if (view.table) return writeCsvRows(out, view.table.columns, view.table.rows);
      const rows = view.details.map(([field, value]) => ({ field, value }));
      return writeCsvRows(out, [{ key: 'field' }, { key: 'value' }], rows);
    }
    case 'table': {
      const { renderDetails, renderTable } = await import('./table.js');
      const style = { color: opts.color, width: out.columns };
      out.write(renderDetails(view.details, style));
      if (view.table) {
        out.write(`\n${view.table.title}:\n`);
        out.write(renderTable(view.table.columns, view.table.rows, style));
      }
    }
  }
}

/** Writes a view to stdout in the chosen format. The only path from commands to stdout. */
export async function writeView(out: OutStream, view: View, opts: WriteOptions): Promise<void> {
  if (view.kind === 'text') {
    out.write(view.text.endsWith('\n') ? view.text : `${view.text}\n`);
    return;
  }
  if (view.kind === 'records') return writeRecords(out, view, opts);
  return writeObject(out, view, opts);
}

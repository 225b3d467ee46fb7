import type { OutStream } from './io.js';
import { drained } from './drain.js';
import { jsonText } from './json-text.js';
import type { Row } from './view.js';

/** Streams rows as one pretty JSON array, written as the rows arrive. */
export async function writeJsonRows(out: OutStream, rows: Iterable<Row> | AsyncIterable<Row>): Promise<void> {
  let first = true;
  for await (const row of rows) {
    const open = first ? '[\n' : ',\n';
    first = false;
    if (!out.write(`${open}  ${jsonText(row, 2).replace(/\n/g, '\n  ')}`)) await drained(out);
  }
  out.write(first ? '[]\n' : '\n]\n');
}

/** Writes one value as pretty JSON. */
export function writeJsonValue(out: OutStream, value: unknown): void {
  out.write(`${jsonText(value, 2)}\n`);
}

/** Streams rows as newline-delimited JSON: one compact object a line. */
export async function writeNdjsonRows(out: OutStream, rows: Iterable<Row> | AsyncIterable<Row>): Promise<void> {
  for await (const row of rows) if (!out.write(`${jsonText(row)}\n`)) await drained(out);
}

import type { OutStream } from './io.js';
import { drained } from './drain.js';
import { jsonText, terminalJson } from './json-text.js';
import type { Row } from './view.js';

/**
 * JSON text as `out` should get it: on a terminal, with the characters that
 * would act on it (C1 controls, line separators, bidi overrides, which
 * JSON.stringify leaves raw) as \uXXXX escapes, the same JSON value; in a pipe
 * or a file, JSON.stringify's bytes unchanged.
 */
export function jsonLine(out: OutStream): (value: unknown, indent?: number) => string {
  return out.isTTY ? (value, indent) => terminalJson(jsonText(value, indent)) : jsonText;
}

/** Streams rows as one pretty JSON array, written as the rows arrive. */
export async function writeJsonRows(out: OutStream, rows: Iterable<Row> | AsyncIterable<Row>): Promise<void> {
  const text = jsonLine(out);
  let first = true;
  for await (const row of rows) {
    const open = first ? '[\n' : ',\n';
    first = false;
    if (!out.write(`${open}  ${text(row, 2).replace(/\n/g, '\n  ')}`)) await drained(out);
  }
  out.write(first ? '[]\n' : '\n]\n');
}

/** Writes one value as pretty JSON. */
export function writeJsonValue(out: OutStream, value: unknown): void {
  out.write(`${jsonLine(out)(value, 2)}\n`);
}

/** Streams rows as newline-delimited JSON: one compact object a line. */
export async function writeNdjsonRows(out: OutStream, rows: Iterable<Row> | AsyncIterable<Row>): Promise<void> {
  const text = jsonLine(out);
  for await (const row of rows) if (!out.write(`${text(row)}\n`)) await drained(out);
}

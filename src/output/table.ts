import { Chalk } from 'chalk';
import { cellText } from './cells.js';
import { drained } from './drain.js';
import type { OutStream } from './io.js';
import type { Column, Row } from './view.js';
import { displayWidth, padToWidth, truncateToWidth } from './width.js';
import { ACTING } from '../util/shown.js';

export interface TableOptions {
  readonly color: boolean;
  /** Terminal width; no limit when undefined or 0. */
  readonly width?: number | undefined;
  /** The header line (default true). */
  readonly header?: boolean | undefined;
}

const GAP = '  ';
const MIN_COL = 4;

/** A cell is one line: line breaks and tabs become spaces, whatever else would act on the terminal is dropped. */
function flat(text: string): string {
  return text.replace(/\r\n|[\r\n\t\u2028\u2029]/g, ' ').replace(ACTING, '');
}

/**
 * Column widths that fit `width`: natural widths, then the widest columns
 * shrink one step at a time (never below a few characters) until the row fits.
 */
export function fitWidths(natural: readonly number[], width: number | undefined): number[] {
  const widths = [...natural];
  if (width === undefined || width <= 0) return widths;
  const total = (): number => widths.reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, widths.length - 1);
  while (total() > width) {
    let widest = 0;
    widths.forEach((w, i) => {
      if (w > (widths[widest] ?? 0)) widest = i;
    });
    if ((widths[widest] ?? 0) <= MIN_COL) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}

/**
 * The lines of a borderless, kubectl-style table, one at a time (each ending
 * in a line break): an upper-case header (bold when colour is on), columns two
 * spaces apart, cells cut with … to fit the terminal. Headers and cells alike
 * are one line with nothing that acts on the terminal (`flat`). Without a
 * width (a pipe or a file) nothing is cut, as kubectl does; lines come one by
 * one, so no string ever holds more than one line. Linear in the number of
 * cells (see bench/table.mjs).
 */
export function* tableLines(columns: readonly Column[], rows: readonly Row[], opts: TableOptions): Generator<string> {
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const headers = columns.map((c) => flat((c.header ?? c.key).toUpperCase()));
  const cells = rows.map((r) => columns.map((c) => flat(cellText(r, c))));
  const natural = headers.map((h, i) => {
    let w = displayWidth(h);
    for (const row of cells) w = Math.max(w, displayWidth(row[i] ?? ''));
    return w;
  });
  const widths = fitWidths(natural, opts.width);
  const line = (values: readonly string[], style: (s: string) => string): string => {
    // Trailing blanks are left off: the last column is not padded, nor are empty cells at the end.
    let last = values.length - 1;
    while (last > 0 && (values[last] ?? '') === '') last--;
    let text = '';
    for (let i = 0; i <= last; i++) {
      const w = widths[i] ?? 0;
      const cut = truncateToWidth(values[i] ?? '', w);
      if (i > 0) text += GAP;
      // Style the words only.
      text += i === last ? style(cut) : style(cut) + padToWidth('', w - displayWidth(cut));
    }
    return `${text.trimEnd()}\n`;
  };
  if (opts.header !== false) yield line(headers, (s) => chalk.bold(s));
  for (const row of cells) yield line(row, (s) => s);
}

/** The whole table as one string (short tables: details views, tests, the bench). */
export function renderTable(columns: readonly Column[], rows: readonly Row[], opts: TableOptions): string {
  let text = '';
  for (const l of tableLines(columns, rows, opts)) text += l;
  return text;
}

/** Writes the table line by line, waiting for a full pipe to drain: a table of any width never becomes one string. */
export async function writeTable(out: OutStream, columns: readonly Column[], rows: readonly Row[], opts: TableOptions): Promise<void> {
  for (const l of tableLines(columns, rows, opts)) if (!out.write(l)) await drained(out);
}

/** Renders label/value pairs as aligned "Label:  value" lines. */
export function renderDetails(pairs: readonly (readonly [string, string])[], opts: TableOptions): string {
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const lines = pairs.map(([k, v]) => [flat(k), flat(v)] as const);
  const pad = Math.max(0, ...lines.map(([k]) => k.length)) + 1;
  return lines.map(([k, v]) => `${chalk.bold(`${k}:`.padEnd(pad))}  ${v}\n`).join('');
}

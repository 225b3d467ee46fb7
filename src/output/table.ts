import { Chalk } from 'chalk';
import { cellText } from './cells.js';
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
 * Renders rows as a borderless, kubectl-style table: an upper-case header
 * (bold when colour is on), columns two spaces apart, cells cut with … to fit
 * the terminal. Linear in the number of cells (see bench/table.mjs).
 */
export function renderTable(columns: readonly Column[], rows: readonly Row[], opts: TableOptions): string {
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const headers = columns.map((c) => (c.header ?? c.key).toUpperCase());
  const cells = rows.map((r) => columns.map((c) => flat(cellText(r, c))));
  const natural = headers.map((h, i) => {
    let w = displayWidth(h);
    for (const row of cells) w = Math.max(w, displayWidth(row[i] ?? ''));
    return w;
  });
  const widths = fitWidths(natural, opts.width);
  const line = (values: readonly string[], style: (s: string) => string): string =>
    values
      .map((v, i) => {
        const w = widths[i] ?? 0;
        const cut = truncateToWidth(v, w);
        // Style the words only; the last column is not padded (no trailing blanks).
        return i === values.length - 1 ? style(cut) : style(cut) + padToWidth('', w - displayWidth(cut));
      })
      .join(GAP)
      .trimEnd();
  const out = opts.header === false ? [] : [line(headers, (s) => chalk.bold(s))];
  for (const row of cells) out.push(line(row, (s) => s));
  return out.length ? `${out.join('\n')}\n` : '';
}

/** Renders label/value pairs as aligned "Label:  value" lines. */
export function renderDetails(pairs: readonly (readonly [string, string])[], opts: TableOptions): string {
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const lines = pairs.map(([k, v]) => [flat(k), flat(v)] as const);
  const pad = Math.max(0, ...lines.map(([k]) => k.length)) + 1;
  return lines.map(([k, v]) => `${chalk.bold(`${k}:`.padEnd(pad))}  ${v}\n`).join('');
}

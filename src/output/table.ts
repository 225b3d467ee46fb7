import { Chalk } from 'chalk';
import Table from 'cli-table3';
import { cellText } from './cells.js';
import type { Column, Row } from './view.js';

export interface TableOptions {
  readonly color: boolean;
  /** Terminal width; no limit when undefined. */
  readonly width?: number | undefined;
}

const GAP = 2;
const MIN_COL = 4;

/** Longest line of a cell: cells are one line in a table. */
function flat(text: string): string {
  return text.replace(/\r?\n/g, ' ');
}

/**
 * Column widths that fit `width`: natural widths, then the widest columns
 * shrink one step at a time (never below a few characters) until the row fits.
 */
export function fitWidths(natural: readonly number[], width: number | undefined): number[] {
  const widths = [...natural];
  if (width === undefined || width <= 0) return widths;
  const total = (): number => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);
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

function truncate(text: string, width: number): string {
  if ([...text].length <= width) return text;
  return `${[...text].slice(0, Math.max(0, width - 1)).join('')}…`;
}

/**
 * Renders rows as a borderless, kubectl-style table: an upper-case header
 * (bold when colour is on), columns two spaces apart, cells cut with … to fit.
 */
export function renderTable(columns: readonly Column[], rows: readonly Row[], opts: TableOptions): string {
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const headers = columns.map((c) => (c.header ?? c.key).toUpperCase());
  const cells = rows.map((r) => columns.map((c) => flat(cellText(r, c))));
  const natural = headers.map((h, i) => Math.max([...h].length, ...cells.map((row) => [...(row[i] ?? '')].length)));
  const widths = fitWidths(natural, opts.width);
  const table = new Table({
    head: headers.map((h, i) => chalk.bold(truncate(h, widths[i] ?? h.length))),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '',
      right: '', 'right-mid': '', middle: ' '.repeat(GAP),
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  for (const row of cells) table.push(row.map((cell, i) => truncate(cell, widths[i] ?? cell.length)));
  return `${table.toString().split('\n').map((l) => l.trimEnd()).join('\n')}\n`;
}

/** Renders label/value pairs as aligned "Label:  value" lines. */
export function renderDetails(pairs: readonly (readonly [string, string])[], opts: TableOptions): string {
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const pad = Math.max(0, ...pairs.map(([k]) => k.length)) + 1;
  return pairs.map(([k, v]) => `${chalk.bold(`${k}:`.padEnd(pad))}  ${v}\n`).join('');
}

import { jsonText } from './json-text.js';
import type { Column, Row } from './view.js';

/** Text of one value in a table or CSV cell: null and undefined are empty, objects are JSON. */
export function toCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return jsonText(value);
}

/** The text a column shows for a row: its own renderer, else the generic one. */
export function cellText(row: Row, column: Column): string {
  const value = row[column.key];
  return column.text ? column.text(value, row) : toCell(value);
}

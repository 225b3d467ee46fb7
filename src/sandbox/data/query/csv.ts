/**
 * Query results as the service's CSV export: `;` between values, CRLF between
 * lines, a header line of the selected names, RFC 4180 quoting (a value holding
 * the delimiter, a double quote or a line break is wrapped in double quotes,
 * inner quotes doubled), null as an empty value, objects as JSON text.
 */

/** The delimiter of the service's CSV export. */
export const CSV_DELIMITER = ';';

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[";\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Renders a header and rows (values in header order) as CSV text. */
export function renderCsv(names: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const lines = [names.map(cell).join(CSV_DELIMITER)];
  for (const row of rows) lines.push(row.map(cell).join(CSV_DELIMITER));
  return `${lines.join('\r\n')}\r\n`;
}

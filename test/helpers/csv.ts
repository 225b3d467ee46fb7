/**
 * A small RFC 4180 reader for tests, to prove CSV output parses back to the
 * same values: quoted fields may hold the delimiter, doubled quotes and line
 * breaks; records end in LF or CRLF.
 */
export function parseCsv(text: string, delimiter = ','): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endRow = (): void => {
    row.push(cell);
    out.push(row);
    row = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delimiter) row.push(cell), (cell = '');
    else if (ch === '\n') endRow();
    else if (ch === '\r' && text[i + 1] === '\n') endRow(), i++;
    else cell += ch;
  }
  if (cell !== '' || row.length) endRow();
  return out;
}

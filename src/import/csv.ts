/**
 * RFC 4180 records from text, each with the line it starts on: quoted values
 * may hold the delimiter, quotes (doubled) and line breaks (kept as written,
 * CR and all); a record ends at LF or CRLF outside quotes. Lenient where a
 * spreadsheet is: a quote inside an unquoted value is kept as a character.
 * Blank lines are skipped. Pure.
 */

/** One record: the line it starts on (1-based), its cells, or why it cannot be read. */
export interface CsvRecord {
  readonly line: number;
  readonly cells: readonly string[];
  /** The last line the record spans (a quoted value may hold line breaks). */
  readonly lastLine: number;
  readonly problem?: string;
}

/** The records of a CSV text (the header is the first), in order. */
export function* csvRecords(text: string, delimiter: string): Generator<CsvRecord> {
  const len = text.length;
  let i = 0;
  let line = 1;
  while (i < len) {
    const startLine = line;
    const cells: string[] = [];
    let cell = '';
    let problem: string | undefined;
    let ended = false;
    while (!ended) {
      if (text[i] === '"') {
        // A quoted value: up to the closing quote, "" standing for one quote.
        i++;
        let closed = false;
        while (i < len) {
          const ch = text[i] as string;
          if (ch === '"') {
            if (text[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (ch === '\n') line++;
          cell += ch;
          i++;
        }
        if (!closed) problem = `a quoted value opened on line ${startLine} is never closed; close it with "`;
      }
      // The unquoted rest of the value (after a closing quote too, kept as written).
      while (i < len && text[i] !== delimiter && text[i] !== '\n') {
        if (text[i] === '\r' && text[i + 1] === '\n') break;
        cell += text[i];
        i++;
      }
      cells.push(cell);
      cell = '';
      if (i >= len) ended = true;
      else if (text[i] === delimiter) i++;
      else {
        i += text[i] === '\r' ? 2 : 1;
        line++;
        ended = true;
      }
    }
    const lastLine = text[i - 1] === '\n' ? line - 1 : line;
    if (cells.length === 1 && cells[0] === '' && problem === undefined) continue; // a blank line
    yield { line: startLine, cells, lastLine, ...(problem ? { problem } : {}) };
  }
}

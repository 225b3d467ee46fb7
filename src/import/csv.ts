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

/** How many line feeds text[from, to) holds. */
function lineFeeds(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/**
 * The records of a CSV text (the header is the first), in order. A value is cut out of the text in slices
 * (between quotes, up to a delimiter or line end), never built a character at a time: a 50 MB value is one
 * slice, not fifty million appends.
 */
export function* csvRecords(text: string, delimiter: string): Generator<CsvRecord> {
  const len = text.length;
  // A delimiter is one character; anything longer never matches, as before.
  const delim = delimiter.length === 1 ? delimiter.charCodeAt(0) : -1;
  let i = 0;
  let line = 1;
  while (i < len) {
    const startLine = line;
    const cells: string[] = [];
    let problem: string | undefined;
    for (;;) {
      let cell = '';
      if (text.charCodeAt(i) === 0x22) {
        // A quoted value: up to the closing quote, "" standing for one quote.
        i++;
        let closed = false;
        while (i < len) {
          const quote = text.indexOf('"', i);
          const end = quote === -1 ? len : quote;
          line += lineFeeds(text, i, end);
          cell += text.slice(i, end);
          i = end;
          if (quote === -1) break;
          if (text.charCodeAt(quote + 1) === 0x22) {
            cell += '"';
            i = quote + 2;
            continue;
          }
          i = quote + 1;
          closed = true;
          break;
        }
        if (!closed) problem = `a quoted value opened on line ${startLine} is never closed; close it with "`;
      }
      // The unquoted rest of the value (after a closing quote too, kept as written).
      const from = i;
      while (i < len) {
        const c = text.charCodeAt(i);
        if (c === delim || c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a)) break;
        i++;
      }
      cells.push(cell + text.slice(from, i));
      if (i >= len) break;
      if (text.charCodeAt(i) === delim) {
        i++;
        continue;
      }
      i += text.charCodeAt(i) === 0x0d ? 2 : 1;
      line++;
      break;
    }
    const lastLine = text[i - 1] === '\n' ? line - 1 : line;
    if (cells.length === 1 && cells[0] === '' && problem === undefined) continue; // a blank line
    yield { line: startLine, cells, lastLine, ...(problem ? { problem } : {}) };
  }
}

const TSV_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

/**
 * The records of a TSV text as svc's `-o tsv` writes it (the PostgreSQL text
 * convention): a record a line (LF or CRLF), values at tabs, never quoted;
 * `\\`, `\t`, `\n` and `\r` stand for a backslash, tab, LF and CR (any other
 * backslash is kept as written). Blank lines are skipped. Pure.
 */
export function* tsvRecords(text: string): Generator<CsvRecord> {
  let line = 0;
  for (const raw of text.split('\n')) {
    line++;
    const t = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (t === '') continue;
    yield { line, lastLine: line, cells: t.split('\t').map((cell) => cell.replace(/\\([\\tnr])/g, (_, c: string) => TSV_ESCAPES[c] ?? c)) };
  }
}

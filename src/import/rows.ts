/**
 * The rows of an import file as record bodies: CSV cells converted by the
 * catalogue exactly as `field=value` arguments of create and update are (an
 * empty cell is `field=`), NDJSON and JSON-array objects taken as `--data`
 * takes them. Each row keeps its line, its ID (a row with one is an update)
 * and every problem found so far; the catalogue checks come later, once it is
 * known whether the row creates or updates. Pure.
 */
import type { ResourceFamily } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { assignInto, setOwn, type RecordBody } from '../records/convert.js';
import { nestsDeeperThan } from '../util/json-depth.js';
import { shown } from '../util/shown.js';
import { csvRecords, tsvRecords } from './csv.js';
import { hugeNumberProblem, jsonArrayValues, MAYBE_HUGE, ndjsonValues, nonFiniteAt, type JsonValueAt } from './json-rows.js';
import type { ImportFormat } from './formats.js';
import type { DecodedInput } from './text.js';

export type { ImportFormat } from './formats.js';

/** One row of the file. */
export interface ImportRow {
  /** The line it starts on (1-based; a CSV file's header is line 1). */
  readonly line: number;
  /** The fields to write, ID left out. */
  readonly body: RecordBody;
  /** The record ID the row names (it is then an update), as digits. */
  readonly id?: string;
  /** What is wrong with the row, one line each; empty when nothing is known to be. */
  readonly problems: string[];
}

/** The format of a file: named, else by its extension, else by its first character. */
export function detectFormat(name: string, text: string, given?: ImportFormat): ImportFormat {
  if (given) return given;
  const ext = /\.([a-z]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'tsv') return 'csv';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'json') return /^\s*\[/.test(text) ? 'json' : 'ndjson';
  const first = /\S/.exec(text)?.[0];
  return first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv';
}

/** The ID of a row as digits, or a problem. */
function idOf(value: unknown): { id?: string; problem?: string } {
  if (value === undefined || value === null || value === '') return {};
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value : undefined;
  if (text === undefined || !/^\d{1,16}$/.test(text) || /^0+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    return { problem: `ID must be a record's whole-number ID (or empty to create one), not ${JSON.stringify(value)?.slice(0, 40) ?? String(value)}` };
  }
  return { id: text };
}

function problemsOfLines(input: DecodedInput, from: number, to: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const bad = input.badLines.get(n);
    if (bad) out.push(n === from ? bad : `line ${n}: ${bad}`);
  }
  return out;
}

/** The header's names, checked: none empty, none twice, not a line that holds the whole file or another delimiter's columns. */
function checkHeader(cells: readonly string[], source: string, delimiter: string): void {
  // Lines that end in CR alone (classic Mac) are one line to a reader of LF and CRLF: the header would be the whole file.
  if (cells.some((name) => name.includes('\r'))) {
    throw new UsageError(`${source}: its lines end in a carriage return alone (CR, as classic Mac programs save them), so it reads as one line; save it with LF or CRLF line ends`);
  }
  const only = cells.length === 1 ? cells[0] : undefined;
  if (only?.includes('\t') && delimiter !== '\t') {
    throw new UsageError(`${source}: the header is one column holding tabs; for tab-separated values (as a spreadsheet saves them, with CSV quoting) pass --delimiter with a tab (e.g. --delimiter $'\\t'); name the file .tsv only if it is svc's own -o tsv`);
  }
  if (only?.includes(';') && delimiter !== ';') throw new UsageError(`${source}: the header is one column holding ';'; for the service's own CSV pass --delimiter ';'`);
  const seen = new Set<string>();
  cells.forEach((name, i) => {
    if (name === '') throw new UsageError(`${source}: column ${i + 1} of the header has no name; name every column after a field (ID, lastname, extdata.NAME, tags, …)`);
    if (seen.has(name)) throw new UsageError(`${source}: the header names '${name.slice(0, 60)}' twice; keep one column per field`);
    seen.add(name);
  });
}

/** CSV rows: header = field names; each cell converted as `name=cell` is on the command line. */
function* csvRows(family: ResourceFamily, input: DecodedInput, delimiter: string, zone: string, source: string, tsv: boolean): Generator<ImportRow> {
  let header: readonly string[] | undefined;
  for (const rec of tsv ? tsvRecords(input.text) : csvRecords(input.text, delimiter)) {
    if (!header) {
      if (rec.problem) throw new UsageError(`${source}: the header line cannot be read: ${rec.problem}`);
      const bad = input.badLines.get(rec.line);
      if (bad) throw new UsageError(`${source}: the header line is ${bad}`);
      checkHeader(rec.cells, source, tsv ? '\t' : delimiter);
      header = rec.cells;
      continue;
    }
    const problems = problemsOfLines(input, rec.line, rec.lastLine);
    if (rec.problem) problems.push(rec.problem);
    if (rec.cells.length !== header.length) problems.push(`${rec.cells.length} values for the header's ${header.length} columns; ${tsv ? 'write a tab in a value as \\t' : `quote values that hold '${delimiter}'`}`);
    const body: RecordBody = {};
    let id: string | undefined;
    let huge = false;
    header.forEach((name, i) => {
      const cell = rec.cells[i];
      if (cell === undefined) return;
      if (name === 'ID') {
        const r = idOf(cell);
        if (r.problem) problems.push(r.problem);
        id = r.id;
        return;
      }
      try {
        assignInto(family, body, [`${name}=${cell}`], zone);
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        problems.push(`column ${name.slice(0, 60)}: ${err.message}`);
        return;
      }
      // A number beyond a double converts to Infinity, which JSON sends as null: named as written instead.
      if (!huge && MAYBE_HUGE.test(cell) && nonFiniteAt(body) !== undefined) {
        huge = true; // the first such column is named (a later one would find this one's Infinity)
        problems.push(`column ${name.slice(0, 60)}: ${hugeNumberProblem('', shown(cell, 40))}`);
      }
    });
    yield { line: rec.line, body, ...(id !== undefined ? { id } : {}), problems };
  }
  if (!header) throw new UsageError(`${source} is empty; a CSV file needs a header line of field names`);
}

/** Levels of nesting a row's value may have (the service's bodies take 128; a record's fields need a few). */
export const MAX_DEPTH = 64;

/** An object of the file as a row: its ID apart, the rest as `--data` takes it. */
function objectRow(input: DecodedInput, v: JsonValueAt): ImportRow {
  const problems = problemsOfLines(input, v.line, v.lastLine);
  if (v.problem) return { line: v.line, body: {}, problems: [...problems, v.problem] };
  const value = v.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line: v.line, body: {}, problems: [...problems, `each row must be a JSON object of field values, not ${Array.isArray(value) ? 'an array' : JSON.stringify(value)?.slice(0, 40)}`] };
  }
  if (nestsDeeperThan(value, MAX_DEPTH)) return { line: v.line, body: {}, problems: [...problems, `nested more than ${MAX_DEPTH} levels deep; a record's values need far fewer`] };
  const body: RecordBody = {};
  let id: string | undefined;
  for (const [k, x] of Object.entries(value as Record<string, unknown>)) {
    if (k !== 'ID') {
      setOwn(body, k, x);
      continue;
    }
    const r = idOf(x);
    if (r.problem) problems.push(r.problem);
    id = r.id;
  }
  return { line: v.line, body, ...(id !== undefined ? { id } : {}), problems };
}

/** What reading the rows needs besides the text. */
export interface RowOptions {
  readonly format: ImportFormat;
  /** The CSV delimiter (one character). */
  readonly delimiter: string;
  /** CSV read as svc's own TSV (tabs, backslash escapes, no quotes): a .tsv file. */
  readonly tsv?: boolean;
  /** The time zone for CSV dates without an offset. */
  readonly zone: string;
  /** The file as messages name it. */
  readonly source: string;
}

/** Every row of the file, in order; a file that cannot be read at all is a usage error. */
export function readRows(family: ResourceFamily, input: DecodedInput, opts: RowOptions): ImportRow[] {
  if (opts.format === 'csv') return [...csvRows(family, input, opts.delimiter, opts.zone, opts.source, opts.tsv === true)];
  const values = opts.format === 'json' ? jsonArrayValues(input.text, opts.source) : ndjsonValues(input.text);
  return [...values].map((v) => objectRow(input, v));
}

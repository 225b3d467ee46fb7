/**
 * What commands return instead of writing: a view. The formatters decide how a
 * view looks in each output format; only they write to stdout.
 */

export type Row = Readonly<Record<string, unknown>>;

export interface Column {
  /** Member of the row to show. */
  readonly key: string;
  /** Heading in a table; the key when absent. */
  readonly header?: string;
  /** Text of the value in a table or CSV cell; JSON output keeps the raw value. */
  readonly text?: (value: unknown, row: Row) => string;
}

/** Rows of the same shape: query results, listings. */
export interface RecordsView {
  readonly kind: 'records';
  readonly columns: readonly Column[];
  readonly rows: Iterable<Row> | AsyncIterable<Row>;
}

/**
 * One object. As json/ndjson it is `value`; as a table it is `details` (label
 * and text pairs) followed by an optional table; as csv and tsv it is that
 * table's rows, or (with `csv: 'value'`, or no table) `value`'s members as two
 * columns (field, value: the values as JSON has them, not the details' text;
 * an object or array as its JSON).
 */
export interface ObjectView {
  readonly kind: 'object';
  readonly value: unknown;
  readonly details: readonly (readonly [string, string])[];
  readonly table?: { readonly title: string; readonly columns: readonly Column[]; readonly rows: readonly Row[] };
  /** What csv and tsv print: the table's rows (the default: describe's fields) or the value's members (whoami, whose table is a part of it). */
  readonly csv?: 'table' | 'value';
}

/** Prose for people (help pages): written as it is in every format. */
export interface TextView {
  readonly kind: 'text';
  readonly text: string;
}

export type View = RecordsView | ObjectView | TextView;

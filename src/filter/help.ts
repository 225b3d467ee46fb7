/**
 * The page of `svc help filters`. The operator table and the date words are
 * rendered from the same data the lexer, parser and compiler use.
 */
import { DATE_WORDS, RELATIVE_UNITS } from './dates.js';
import { OPERATORS } from './operators.js';

/** Rows in columns: the widest cell of each column sets its width. */
function columns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => `  ${r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}`);
}

function operatorTable(): string[] {
  return columns([
    ['write', 'sent', 'meaning'],
    ...OPERATORS.map((o) => [[o.symbol, ...o.words].filter((x) => x !== undefined).join(', '), o.service, o.meaning]),
    ['is null', '= null', 'the field has no value'],
    ['is not null', '!= null', 'the field has a value'],
  ]);
}

function dateTable(): string[] {
  const units = Object.entries(RELATIVE_UNITS).map(([u, s]) => `${u} = ${s} s`).join(', ');
  return columns([
    ['2026-11-01', 'the start of that day'],
    ['2026-11-01T08:30[:15]', 'that wall-clock time; when quoted, a space may replace the T'],
    ['2026-11-01T08:30Z', 'that moment; an offset such as +01:00 may replace the Z'],
    ['1793491200', 'Unix seconds as they are'],
    ...Object.entries(DATE_WORDS),
    ['-7d, +2h', `now minus or plus an amount; units ${units}`],
  ]);
}

/** Examples shown on the page, each checked by the tests against the catalogue. */
export const FILTER_EXAMPLES: readonly (readonly [family: string, expression: string])[] = [
  ['accounts', `type in (CUSTOMER, SUPPLIER) and lastname ilike "%gmbh%"`],
  ['accounts', 'contact.city = Berlin or contact is null'],
  ['accounts', 'not (visibility = ARCHIVED or locked = true)'],
  ['accounts', 'extdata.score > 10 and creationdate >= -30d'],
  ['actionsteps', 'date >= startofmonth and date < today and status != CANCELLED'],
  ['appointments', 'datefrom >= 2026-11-01 and datefrom < 2026-12-01T00:00+01:00'],
];

/** The text of `svc help filters`. */
export const filterHelp: string = [
  'Filters',
  '',
  'svc <family> query --filter EXPR selects records with an expression, checked',
  'against the catalogue before anything is sent:',
  '',
  `  svc accounts query --filter 'type = CUSTOMER and contact.city ~* "^ber"'`,
  '',
  'Grammar',
  '',
  '  expr       = or',
  "  or         = and { 'or' and }",
  "  and        = not { 'and' not }",
  "  not        = 'not' not | comparison",
  "  comparison = '(' expr ')' | field operator value | field ['not'] 'in' '(' value {',' value} ')'",
  "             | field 'is' ['not'] 'null'",
  '',
  'not binds tighter than and, and tighter than or; use parentheses to group.',
  'Keywords (and, or, not, in, is, null, like, true, …) are case-insensitive.',
  '',
  'Fields',
  '',
  '  a field of the family          lastname, type, ID (see svc describe <family>)',
  '  a field of a related record    contact.city (one dot, through a reference field)',
  '  an extension field             extdata.<name> (any name; no declared type)',
  '',
  'A field the family lacks (visibility exists on some families only), and a composite',
  'or computed field, is an error that names the field, with a suggestion.',
  '',
  'Operators',
  '',
  ...operatorTable(),
  '',
  'Regular-expression and like operators apply to text fields only. Regular expressions are',
  "PostgreSQL's: . matches a line break too, options such as (?i) may start one, and \\y marks",
  'a word boundary (\\m the start of a word, \\M its end).',
  '',
  'Values',
  '',
  '  42, -1.5           numbers; a text field keeps them as typed (postalcode = 01067)',
  "  'text', \"text\"     quoted text; escapes \\n \\t \\\\ \\' \\\" (any other backslash is kept,",
  '                     so "\\d+" is the regular expression \\d+)',
  '  Berlin             a bare word is text; quote words holding spaces or symbols',
  '  null               no value: = null and != null mean is null and is not null',
  '  true, false        1 and 0 for flag fields',
  '  CUSTOMER           an enum name of the field, any case (type = customer); a number also works',
  '',
  'extdata.<name> fields have no declared type: a bare number or true/false is sent as',
  'a JSON number or boolean; quote it to compare text (extdata.code = "01067").',
  '',
  'Dates (timestamp fields, sent as Unix seconds)',
  '',
  ...dateTable(),
  '',
  'Days, weeks (starting Monday), months and years begin at midnight in the time zone of',
  '--tz <IANA name> (for example Europe/Berlin), else the local zone; relative amounts',
  'count exact seconds back or forward from now. Where clocks change, a wall-clock time',
  'that occurs twice (clocks set back) is the earlier moment, and one that does not occur',
  '(clocks set forward over it) is the moment the clocks jump, the first after the gap: a',
  'day whose midnight is skipped starts then.',
  '',
  'Examples',
  '',
  ...FILTER_EXAMPLES.map(([family, expression]) => `  svc ${family} query --filter '${expression}'`),
  '',
  'Several --filter and --filter-json options are ANDed: members on distinct fields are',
  'merged, and conditions that collide are kept in an ["AND", …] array, never dropped.',
  'svc sends the result as the query member `filters` (the member the vendor client sends),',
  'so conditions on foreign-key fields are not silently ignored.',
  '',
].join('\n');

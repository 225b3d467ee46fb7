/**
 * s9-filter: the filter language end to end, by differential testing.
 *
 * Records with hostile but valid values (case variants ß/SS/ẞ, İ/ı, combining
 * marks, emoji, empty texts, nulls through a missing related record and a
 * missing extension value, `%` `_` `\` quotes in texts, the bounds of an int16
 * (probability 0..100), whole numbers past 2^53, money with decimals, -0,
 * 5e-324, ±1.7976931348623157e308, dates at epoch 0, before
 * it, around the 2026 DST changes in Europe/Berlin, at 2^31 and in 9999) are
 * created in a sandbox of the file's own and read back with `query --all -o json`.
 * Seeded random filters (and/or/not nesting, redundant parentheses, keyword
 * case, every operator of `svc help filters` on every kind of field, split
 * over several --filter flags) are then run through the real CLI and compared
 * with a small reference evaluator written from `svc help filters` and the
 * README ("PostgreSQL semantics: `~` regular expressions, `~~` LIKE, `*` forms
 * case-insensitive"; SQL's three-valued logic, so `!=` and `not` never match
 * a null). `count` must equal the query's rows, `sum` the exact sum of the
 * rows' values (README: "totals a numeric field exactly"), `export` the same IDs.
 * A disagreement is minimised to the smallest filter that still shows it.
 *
 * The random filters leave out what the README leaves open (the order of texts,
 * which depends on a collation) and the faults pinned by their own tests in
 * s9-filter-semantics.test.ts (`.` and line breaks, numbers against texts in
 * extdata, whole numbers past 2^53 written in digits on extdata), so that
 * anything the random part finds is new.
 *
 * The export of a seeded filter is also stopped (SIGINT, SIGTERM, SIGKILL) at a
 * seeded request, at --concurrency 1 and 4, with the sandbox failing 15% of
 * requests, and resumed until it converges.
 *
 * Seed: SVC_S9_SEED (default below; printed). Everything here held (names say
 * "HELD"); the faults this file's first runs found are pinned in
 * s9-filter-semantics.test.ts and s9-filter-input.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../../src/util/random.js';
import { sandboxCli, type CliRun } from '../helpers/cli.js';
import { useSpawnedSvc } from './s7-support.js';

const SEED = Number(process.env.SVC_S9_SEED ?? 20261209);
console.log(`s9-filter-differential: seed ${SEED} (replay with SVC_S9_SEED=${SEED})`);

/** Every file this test writes (filter files, exports, the spawned svc's config), removed after the last test. */
const tmp = mkdtempSync(join(tmpdir(), 's9-filter-differential-'));
mkdirSync(join(tmp, 'config'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let files = 0;
const fresh = (name: string): string => {
  const d = join(tmp, String(files++));
  mkdirSync(d);
  return join(d, name);
};

const { sandbox, run } = sandboxCli();
const spawned = useSpawnedSvc({ url: () => sandbox().instanceUrl, token: () => sandbox().token(), configDir: join(tmp, 'config'), killMs: 20_000 });
const TZ = 'Europe/Berlin';

// ---------------------------------------------------------------- the data

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;

/** Dates around every edge: epoch, before it, both 2026 DST changes in Berlin (01:00Z), 2^31, year 9999. */
const DATES = [
  0, -1, 1, -3600, -3601, utc(2026, 3, 29, 0, 59, 59), utc(2026, 3, 29, 1), utc(2026, 3, 28, 23), utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30),
  utc(2026, 10, 25, 0), utc(2026, 10, 25, 2), 2147483647, 2147483648, 253402300799, utc(2026, 11, 18, 14, 30),
];

/**
 * Date literals as `svc help filters` documents them, with --tz Europe/Berlin, and the moment each means:
 * "a wall-clock time that occurs twice (clocks set back) is the earlier moment, and one that does not occur
 * (clocks set forward over it) is the moment the clocks jump".
 */
const DATE_LITERALS: readonly (readonly [string, number])[] = [
  ['1970-01-01T00:00Z', 0],
  ['1970-01-01', -3600],
  ['1969-12-31T23:59:59Z', -1],
  ['1970-01-01T00:00:01+00:00', 1],
  ['2026-03-29', utc(2026, 3, 28, 23)],
  ['2026-03-29T01:59:59', utc(2026, 3, 29, 0, 59, 59)],
  ['2026-03-29T02:30', utc(2026, 3, 29, 1)],
  ['2026-03-29T03:00', utc(2026, 3, 29, 1)],
  ['2026-10-25T02:30', utc(2026, 10, 25, 0, 30)],
  ['"2026-10-25 02:00:00"', utc(2026, 10, 25, 0)],
  ['2026-10-25T02:30+01:00', utc(2026, 10, 25, 1, 30)],
  ['2026-10-25T03:00', utc(2026, 10, 25, 2)],
  ['2038-01-19T03:14:08Z', 2147483648],
  ['9999-12-31T23:59:59Z', 253402300799],
];

const DOUBLES = [
  0, -0, 0.1, 0.2, 0.3, 0.30000000000000004, -0.1, 1e21, 5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 9007199254740992,
  9007199254740994, 123456789.12345679, 17220, -32768.5, 1.1,
];
/** opportunities' doubles are at least 0 (-0 included); negative ones live in extdata.score. */
const MONEY = DOUBLES.filter((v) => v >= 0);
const PERCENT = [0, 1, 50, 99, 100];

/** Texts a single-line field takes (no line breaks, no blank at either end), hostile otherwise. */
const LINE_TEXTS = [
  'Straße', 'STRASSE', 'strasse', 'ẞ', 'ß', 'SS', 'İstanbul', 'istanbul', 'ISTANBUL', 'ı', 'I', 'i', 'Café', 'Cafe\u0301', 'CAFÉ',
  '😀', '😀😀', '👩‍👩‍👧', 'x😀y', '100%', '100% Bio', '%', '_', 'a_b', 'axb', '\\', 'a\\b', 'a\\\\b', "O'Brien", '"Quoted"', 'K\u212a',
  'k', 'ſ', 's', 'ΣΑΣ', 'σας', 'ΌΣΟΣ', '\u00a0nbsp\u00a0', 'x\u200by', 'tab\tinside', 'Nordlicht', 'nordlicht', '01067', '1067', 'null',
  'NULL', 'true', 'and', 'or', 'not', 'a b', 'A B', 'ǅ', 'ǆ', 'Ǆ', 'ﬀ', 'ff', 'Geheim',
];
/** Texts a multi-line ("trimmed") field takes: line breaks inside. */
const MULTI_TEXTS = ['a\nb', 'A\nB', 'Line1\r\nLine2', 'ß\nSS', '%\n_', 'x\n', 'end'.concat('\n', 'x'), 'Key account.\nPrefers e-mail'].filter(
  (t) => !/^\s|\s$/.test(t),
);

interface Row {
  readonly [key: string]: unknown;
}

/** What `query --all -o json` gave, one object per record, with the aliases of FETCH_FIELDS: as the user of the round sees them. */
let rows: Row[] = [];
/** The signed-in user of the round, and what each user's `query --all` gave. */
let user = 'demo';
const views = new Map<string, Row[]>();
/** Accounts and opportunities of the Staff group, which the user `reader` may not see. */
const hidden = { accounts: [] as number[], opportunities: [] as number[] };
let accountIds: number[] = [];
const mine = new Set<number>();

const FETCH_FIELDS = [
  'ID', 'account', 'name', 'opportunitynum', 'description', 'date', 'duedate', 'status', 'priority', 'probability', 'worstcase', 'mostlikely',
  'visibility', 'al=account.lastname', 'at=account.type', 'ak=account.locked', 'xs=extdata.score', 'xt=extdata.tag',
].join(',');

async function put(family: string, body: Record<string, unknown>): Promise<number> {
  const r = await sandbox().call('PUT', `api/v1/${family}`, { json: body });
  if (r.status !== 201) throw new Error(`PUT ${family} ${JSON.stringify(body)}: ${r.status} ${r.text}`);
  return r.json<{ ID: number }>().ID;
}

function ok(r: CliRun, what: string): CliRun {
  if (r.code !== 0) throw new Error(`${what}: exit ${r.code}\n${r.stderr}`);
  return r;
}

beforeAll(async () => {
  const types = [0, 1, 2, 3, 4, 5];
  for (let i = 0; i < 14; i++) {
    const lastname = LINE_TEXTS[(i * 7) % LINE_TEXTS.length] ?? '';
    accountIds.push(await put('accounts', { currency: 'EUR', lastname, type: types[i % types.length], locked: i % 3 === 0 ? 1 : 0 }));
  }
  const n = 48;
  for (let i = 0; i < n; i++) {
    const extdata: Record<string, unknown> = {};
    if (i % 3 !== 0) extdata.score = DOUBLES[(i * 5) % DOUBLES.length];
    if (i % 4 !== 1) extdata.tag = LINE_TEXTS[(i * 11 + 3) % LINE_TEXTS.length];
    const date = DATES[i % DATES.length] ?? 0;
    const due = i % 5 === 0 ? null : (DATES[(i * 3 + 1) % DATES.length] ?? 0);
    const body = {
      name: LINE_TEXTS[i % LINE_TEXTS.length],
      opportunitynum: i % 6 === 0 ? '' : LINE_TEXTS[(i * 13 + 5) % LINE_TEXTS.length],
      description: i % 2 === 0 ? (MULTI_TEXTS[i % MULTI_TEXTS.length] ?? '') : (LINE_TEXTS[(i * 17 + 1) % LINE_TEXTS.length] ?? ''),
      account: i % 4 === 3 ? null : accountIds[i % accountIds.length],
      date,
      duedate: due !== null && due < date ? null : due,
      status: i % 7,
      priority: i % 5,
      probability: PERCENT[i % PERCENT.length],
      worstcase: MONEY[i % MONEY.length],
      mostlikely: MONEY[(i * 7 + 2) % MONEY.length],
      visibility: i % 9 === 8 ? 1 : 0,
      ...(Object.keys(extdata).length > 0 ? { extdata } : {}),
    };
    mine.add(await put('opportunities', body));
  }
  // README: "a record with an owner user or group is visible to them and admins only"; "A related record the caller
  // may not see reads as null through a dotted path (fields, filters, sorts, distinct)". `reader` is not in Staff.
  const groups = ok(await run(['groups', 'query', '--filter', 'name = Staff', '--fields', 'ID', '-o', 'json']), 'groups');
  const staff = (JSON.parse(groups.stdout) as { ID: number }[])[0]?.ID;
  for (let i = 0; i < 3; i++) {
    hidden.accounts.push(await put('accounts', { currency: 'EUR', lastname: ['Geheim', 'STRASSE', '100%'][i], type: i + 1, locked: i % 2, ownergroup: staff }));
  }
  for (let i = 0; i < 6; i++) {
    const own = i >= 4;
    const id = await put('opportunities', {
      name: own ? `Staff only ${i}` : LINE_TEXTS[(i * 5) % LINE_TEXTS.length],
      account: hidden.accounts[i % hidden.accounts.length],
      date: DATES[(i * 3) % DATES.length],
      worstcase: MONEY[(i * 3) % MONEY.length],
      description: 'Geheim',
      extdata: { score: i, tag: 'Geheim' },
      ...(own ? { ownergroup: staff } : {}),
    });
    mine.add(id);
    if (own) hidden.opportunities.push(id);
  }
  for (const u of ['demo', 'reader']) {
    const all = ok(await run(['opportunities', 'query', '--all', '--fields', FETCH_FIELDS, '-o', 'json'], { user: u }), `query --all as ${u}`);
    views.set(u, JSON.parse(all.stdout) as Row[]);
  }
  rows = views.get('demo') ?? [];
}, 60_000);

// ---------------------------------------------------------------- the filters

type Kind = 'text' | 'int' | 'double' | 'enum' | 'date' | 'flag' | 'xnum' | 'xtext';

interface Field {
  /** As written in the filter. */
  readonly path: string;
  /** The key in the fetched rows. */
  readonly key: string;
  readonly kind: Kind;
  readonly enumNames?: readonly string[];
}

const STATUS = ['UNEVALUATED', 'ELIGIBLE', 'FEEDBACKREQUIRED', 'INNEGOTIATION', 'OFFERED', 'ACCEPTED', 'REJECTED'];
const PRIORITY = ['LOWEST', 'LOW', 'MEDIUM', 'HIGH', 'HIGHEST'];
const ACCOUNT_TYPE = ['PROSPECT', 'CUSTOMER', 'SUPPLIER', 'CUSTOMERANDSUPPLIER', 'COMPETITOR', 'EMPLOYEE'];
const VISIBILITY = ['REGULAR', 'ARCHIVED', 'DELETED'];

const FIELDS: readonly Field[] = [
  { path: 'name', key: 'name', kind: 'text' },
  { path: 'description', key: 'description', kind: 'text' },
  { path: 'opportunitynum', key: 'opportunitynum', kind: 'text' },
  { path: 'account.lastname', key: 'al', kind: 'text' },
  { path: 'ID', key: 'ID', kind: 'int' },
  { path: 'probability', key: 'probability', kind: 'int' },
  { path: 'account', key: 'account', kind: 'int' },
  { path: 'worstcase', key: 'worstcase', kind: 'double' },
  { path: 'mostlikely', key: 'mostlikely', kind: 'double' },
  { path: 'status', key: 'status', kind: 'enum', enumNames: STATUS },
  { path: 'priority', key: 'priority', kind: 'enum', enumNames: PRIORITY },
  { path: 'account.type', key: 'at', kind: 'enum', enumNames: ACCOUNT_TYPE },
  { path: 'visibility', key: 'visibility', kind: 'enum', enumNames: VISIBILITY },
  { path: 'date', key: 'date', kind: 'date' },
  { path: 'duedate', key: 'duedate', kind: 'date' },
  { path: 'account.locked', key: 'ak', kind: 'flag' },
  { path: 'extdata.score', key: 'xs', kind: 'xnum' },
  { path: 'extdata.tag', key: 'xt', kind: 'xtext' },
];

type Op =
  | { readonly t: 'cmp'; readonly word: string; readonly cmp: '=' | '!=' | '<' | '<=' | '>' | '>=' }
  | { readonly t: 'regex' | 'like'; readonly word: string; readonly neg: boolean; readonly ci: boolean };

const CMP: readonly Op[] = [
  { t: 'cmp', word: '=', cmp: '=' },
  { t: 'cmp', word: '!=', cmp: '!=' },
  { t: 'cmp', word: '<>', cmp: '!=' },
  { t: 'cmp', word: '<', cmp: '<' },
  { t: 'cmp', word: '<=', cmp: '<=' },
  { t: 'cmp', word: '>', cmp: '>' },
  { t: 'cmp', word: '>=', cmp: '>=' },
];
const PATTERN_OPS: readonly Op[] = [
  ['~', 'regex', false, false], ['matches', 'regex', false, false], ['~*', 'regex', false, true], ['imatches', 'regex', false, true],
  ['!~', 'regex', true, false], ['not matches', 'regex', true, false], ['!~*', 'regex', true, true], ['not imatches', 'regex', true, true],
  ['~~', 'like', false, false], ['like', 'like', false, false], ['~~*', 'like', false, true], ['ILIKE', 'like', false, true],
  ['!~~', 'like', true, false], ['not like', 'like', true, false], ['!~~*', 'like', true, true], ['NOT ilike', 'like', true, true],
].map(([word, t, neg, ci]) => ({ t: t as 'regex' | 'like', word: word as string, neg: neg as boolean, ci: ci as boolean }));

/** One value as written in the filter, and what it means. */
interface Val {
  readonly text: string;
  readonly v: number | string;
}

type Node =
  | { readonly k: 'and' | 'or'; readonly items: readonly Node[]; readonly word: string }
  | { readonly k: 'not'; readonly item: Node; readonly word: string }
  | { readonly k: 'cond'; readonly field: Field; readonly op: Op; readonly value: Val }
  | { readonly k: 'set'; readonly field: Field; readonly neg: boolean; readonly word: string; readonly values: readonly Val[] }
  | { readonly k: 'null'; readonly field: Field; readonly neg: boolean; readonly word: string };

/** A quoted text the lexer reads back exactly: every backslash, quote and control character escaped. */
function quote(s: string, q: '"' | "'" = '"'): string {
  const body = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return q + (q === '"' ? body.replace(/"/g, '\\"') : body.replace(/'/g, "\\'")) + q;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'null', 'in', 'is', 'like', 'ilike', 'matches', 'imatches', 'true', 'false']);

function textVal(r: Random, s: string): Val {
  // A bare word is text (svc help filters: "Berlin  a bare word is text"; "postalcode = 01067" keeps it as typed).
  const bare = /^[\p{L}\p{N}][\p{L}\p{N}\p{M}_]*$/u.test(s) && !KEYWORDS.has(s.toLowerCase()) && !/^[0-9]*[a-z]*\d+[smhdw]?$/i.test(s);
  if (bare && r.chance(0.4)) return { text: s, v: s };
  return { text: quote(s, r.chance(0.5) ? '"' : "'"), v: s };
}

function caseVariant(r: Random, s: string): string {
  const c = r.int(0, 3);
  return c === 0 ? s.toUpperCase() : c === 1 ? s.toLowerCase() : s;
}

function numberText(r: Random, n: number, integer: boolean): string {
  if (Object.is(n, -0)) return r.pick(['-0', '0', '+0', '-0.0']).replace(/\.0$/, integer ? '' : '.0');
  // Whole numbers past 2^53 in digits: svc refuses them on extdata even where exact (its own test below).
  if (!integer && Number.isInteger(n) && !Number.isSafeInteger(n)) return r.pick([n.toExponential(), n.toExponential().toUpperCase()]);
  const plain = String(n);
  if (integer) return r.pick([plain, n >= 0 ? `+${plain}` : plain, n >= 0 && n < 1000 ? `00${plain}` : plain]);
  const forms = [plain, n.toExponential(), plain.toUpperCase(), n >= 0 ? `+${plain}` : plain];
  if (Number.isInteger(n) && Math.abs(n) < 1e15) forms.push(`${plain}.0`, `${plain}.`);
  if (/^0\./.test(plain)) forms.push(plain.slice(1));
  return r.pick(forms);
}

function present(key: string): unknown[] {
  return rows.map((row) => row[key]).filter((v) => v !== null && v !== undefined);
}

function pickValue(r: Random, f: Field): Val {
  const seen = present(f.key);
  switch (f.kind) {
    case 'text':
    case 'xtext': {
      const base = r.chance(0.75) && seen.length > 0 ? String(r.pick(seen)) : r.pick(LINE_TEXTS);
      const s = r.chance(0.25) ? caseVariant(r, base) : base;
      if (f.kind === 'xtext') {
        // extdata: "a bare number or true/false is sent as a JSON number or boolean; quote it to compare text".
        return { text: quote(s, r.chance(0.5) ? '"' : "'"), v: s };
      }
      return textVal(r, s);
    }
    case 'int': {
      const base = seen.length > 0 && r.chance(0.8) ? Number(r.pick(seen)) : r.pick(PERCENT);
      const n = base + r.pick([0, 0, 0, -1, 1]);
      return { text: numberText(r, n, true), v: n };
    }
    case 'double':
    case 'xnum': {
      const n = seen.length > 0 && r.chance(0.7) ? Number(r.pick(seen)) : r.pick(DOUBLES);
      return { text: numberText(r, n, false), v: n };
    }
    case 'enum': {
      const names = f.enumNames ?? [];
      const n = r.int(0, names.length - 1);
      return r.chance(0.7) ? { text: caseVariant(r, names[n] ?? ''), v: n } : { text: String(n), v: n };
    }
    case 'date': {
      if (r.chance(0.5)) {
        const [text, v] = r.pick(DATE_LITERALS);
        return { text, v };
      }
      const base = seen.length > 0 && r.chance(0.7) ? Number(r.pick(seen)) : r.pick(DATES);
      const n = base + r.pick([0, 0, -1, 1]);
      return { text: String(n), v: n };
    }
    case 'flag': {
      const b = r.chance(0.5);
      return { text: r.pick(b ? ['true', 'TRUE', '1'] : ['false', 'False', '0']), v: b ? 1 : 0 };
    }
  }
}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|]/g;

/** A regular expression from a piece of a stored text: literals (escaped), classes, alternation, ?, +, *, anchors. No `.`: see its own test. */
function regexValue(r: Random, f: Field): Val {
  const seen = present(f.key).map(String);
  const source = r.chance(0.85) && seen.length > 0 ? r.pick(seen) : r.pick(LINE_TEXTS);
  const chars = [...source];
  const from = r.int(0, Math.max(0, chars.length - 1));
  const piece = chars.slice(from, from + r.int(1, 4));
  let out = r.chance(0.35) ? '^' : '';
  for (const ch of piece) {
    const lit = ch.replace(REGEX_SPECIAL, '\\$&');
    const roll = r.next();
    if (roll < 0.1 && !/[\\\]^-]/.test(ch)) out += `[${ch}x]`;
    else if (roll < 0.17) out += `(${lit}|zz)`;
    else if (roll < 0.22) out += `${lit}?`;
    else if (roll < 0.27) out += `${lit}+`;
    else out += lit;
  }
  if (r.chance(0.3)) out += '$';
  if (r.chance(0.15)) out = caseVariant(r, out).replace(/\\([A-Z])/g, (_m, c: string) => `\\${c.toLowerCase()}`);
  return { text: quote(out), v: out };
}

/** A LIKE pattern from a piece of a stored text: `%`, `_`, and `\` before a literal `%`, `_` or `\`. */
function likeValue(r: Random, f: Field): Val {
  const seen = present(f.key).map(String);
  const source = r.chance(0.85) && seen.length > 0 ? r.pick(seen) : r.pick(LINE_TEXTS);
  const chars = [...source];
  let out = '';
  for (const ch of chars) {
    const roll = r.next();
    if (roll < 0.15) out += '%';
    else if (roll < 0.25) out += '_';
    else if (roll < 0.32) continue;
    else out += /[%_\\]/.test(ch) ? `\\${ch}` : ch;
  }
  if (r.chance(0.3)) out = `%${out}`;
  if (r.chance(0.3)) out += '%';
  if (r.chance(0.15)) out = caseVariant(r, out);
  return { text: quote(out, r.chance(0.5) ? '"' : "'"), v: out };
}

function condition(r: Random): Node {
  const field = r.pick(FIELDS);
  const textual = field.kind === 'text' || field.kind === 'xtext';
  const roll = r.next();
  if (roll < 0.08) {
    const neg = r.chance(0.5);
    const word = neg ? r.pick(['is not null', 'IS NOT NULL', '!= null', '<> NULL']) : r.pick(['is null', 'Is Null', '= null', '= NULL']);
    return { k: 'null', field, neg, word };
  }
  if (roll < 0.22) {
    const neg = r.chance(0.4);
    const values = Array.from({ length: r.int(1, 5) }, () => pickValue(r, field));
    return { k: 'set', field, neg, word: neg ? r.pick(['not in', 'NOT IN', 'Not In']) : r.pick(['in', 'IN']), values };
  }
  if (textual && roll < 0.62) {
    const op = r.pick(PATTERN_OPS);
    // Regular expressions on extdata.tag only: extdata.score holds numbers.
    return { k: 'cond', field, op, value: op.t === 'regex' ? regexValue(r, field) : likeValue(r, field) };
  }
  // Texts: equality only; how texts order depends on a collation the README does not name.
  const op = textual ? r.pick(CMP.slice(0, 3)) : r.pick(CMP);
  return { k: 'cond', field, op, value: pickValue(r, field) };
}

function expression(r: Random, depth: number): Node {
  const roll = r.next();
  if (depth < 4 && roll < 0.3) {
    const k = r.chance(0.5) ? 'and' : 'or';
    const items = Array.from({ length: r.int(2, 4) }, () => expression(r, depth + 1));
    return { k, items, word: r.pick(k === 'and' ? ['and', 'AND', 'And'] : ['or', 'OR', 'Or']) };
  }
  if (depth < 4 && roll < 0.42) return { k: 'not', item: expression(r, depth + 1), word: r.pick(['not', 'NOT', 'Not']) };
  return condition(r);
}

/** The filter text; parentheses where precedence needs them (not > and > or), and now and then where it does not. */
function render(n: Node, r: Random): string {
  const wrap = (child: Node, need: boolean): string => {
    const text = render(child, r);
    return need || r.chance(0.1) ? `(${text})` : text;
  };
  switch (n.k) {
    case 'or':
      return n.items.map((c) => wrap(c, c.k === 'or')).join(` ${n.word} `);
    case 'and':
      return n.items.map((c) => wrap(c, c.k === 'or' || c.k === 'and')).join(` ${n.word} `);
    case 'not':
      return `${n.word} ${wrap(n.item, n.item.k === 'and' || n.item.k === 'or')}`;
    case 'null':
      return `${n.field.path} ${n.word}`;
    case 'set':
      return `${n.field.path} ${n.word} (${n.values.map((v) => v.text).join(r.chance(0.5) ? ', ' : ',')})`;
    case 'cond':
      return `${n.field.path} ${n.op.word} ${n.value.text}`;
  }
}

/** The same filter as the service's JSON (spec: "a key is a field path; its value is a plain value or an object mapping an operator to a value"; composites `["AND" | "OR" | "NOT", …]`). */
function toJson(n: Node): unknown {
  const pathOf = (f: Field): string => f.path;
  switch (n.k) {
    case 'and':
      return ['AND', ...n.items.map(toJson).map(asObject)];
    case 'or':
      return ['OR', ...n.items.map(toJson).map(asObject)];
    case 'not':
      return ['NOT', asObject(toJson(n.item))];
    case 'null':
      return { [pathOf(n.field)]: n.neg ? { '!=': null } : null };
    case 'set':
      return { [pathOf(n.field)]: { [n.neg ? '!IN' : 'IN']: n.values.map((v) => v.v) } };
    case 'cond': {
      const op =
        n.op.t === 'cmp'
          ? n.op.cmp
          : `${n.op.neg ? '!' : ''}${n.op.t === 'regex' ? '~' : '~~'}${n.op.ci ? '*' : ''}`;
      return { [pathOf(n.field)]: { [op]: n.value.v } };
    }
  }
}

/** A composite inside a composite may stand alone; inside an object filter it sits under a numeric key. */
function asObject(j: unknown): unknown {
  return Array.isArray(j) ? { 0: j } : j;
}

// ---------------------------------------------------------------- the reference

/** SQL's three values: true, false, null (unknown). */
type Tri = boolean | null;

function likeRegex(pattern: string, ci: boolean): RegExp {
  let src = '';
  const cps = [...pattern];
  for (let i = 0; i < cps.length; i++) {
    const ch = cps[i] ?? '';
    if (ch === '\\' && i + 1 < cps.length) src += (cps[++i] ?? '').replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    else if (ch === '%') src += '[^]*';
    else if (ch === '_') src += '[^]';
    else src += ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, ci ? 'iu' : 'u');
}

function compare(a: unknown, op: '=' | '!=' | '<' | '<=' | '>' | '>=', b: number | string): Tri {
  if (a === null || a === undefined) return null;
  if (typeof a === 'number' && typeof b === 'number') {
    return op === '=' ? a === b : op === '!=' ? a !== b : op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
  }
  if (typeof a === 'string' && typeof b === 'string') {
    if (op === '=') return a === b;
    if (op === '!=') return a !== b;
  }
  throw new Error(`the reference has no rule for ${JSON.stringify(a)} ${op} ${JSON.stringify(b)}`);
}

function evaluate(n: Node, row: Row): Tri {
  switch (n.k) {
    case 'and': {
      const vs = n.items.map((c) => evaluate(c, row));
      return vs.includes(false) ? false : vs.includes(null) ? null : true;
    }
    case 'or': {
      const vs = n.items.map((c) => evaluate(c, row));
      return vs.includes(true) ? true : vs.includes(null) ? null : false;
    }
    case 'not': {
      const v = evaluate(n.item, row);
      return v === null ? null : !v;
    }
    case 'null': {
      const isNull = row[n.field.key] === null || row[n.field.key] === undefined;
      return n.neg ? !isNull : isNull;
    }
    case 'set': {
      const a = row[n.field.key];
      if (a === null || a === undefined) return null;
      const hit = n.values.some((v) => compare(a, '=', v.v) === true);
      return n.neg ? !hit : hit;
    }
    case 'cond': {
      const a = row[n.field.key];
      if (n.op.t === 'cmp') return compare(a, n.op.cmp, n.value.v);
      if (a === null || a === undefined) return null;
      const text = String(a);
      // PostgreSQL: `.` and bracket expressions match a line break; JavaScript's `s` flag does the same.
      const rx = n.op.t === 'regex' ? new RegExp(String(n.value.v), n.op.ci ? 'siu' : 'su') : likeRegex(String(n.value.v), n.op.ci);
      const hit = rx.test(text);
      return n.op.neg ? !hit : hit;
    }
  }
}

function expectedIds(n: Node): number[] {
  return rows.filter((row) => evaluate(n, row) === true).map((row) => Number(row.ID)).sort((a, b) => a - b);
}

// ---------------------------------------------------------------- running svc

/** The --filter flags of a node: a top-level `and` is now and then spread over several (README: "repeatable, ANDed"). */
function filterArgs(n: Node, r: Random): string[] {
  if (n.k === 'and' && r.chance(0.4)) return n.items.flatMap((c) => ['--filter', render(c, r)]);
  return ['--filter', render(n, r)];
}

interface Outcome {
  readonly ids?: number[];
  readonly error?: string;
}

async function queried(args: string[], pageSize: number): Promise<Outcome> {
  const r = await run(['opportunities', 'query', ...args, '--tz', TZ, '--all', '--page-size', String(pageSize), '--fields', 'ID', '-o', 'json'], { user });
  if (r.code !== 0) return { error: `exit ${r.code}: ${r.stderr.trim()}` };
  return { ids: (JSON.parse(r.stdout) as { ID: number }[]).map((x) => x.ID).sort((a, b) => a - b) };
}

function differs(o: Outcome, want: number[]): boolean {
  return o.error !== undefined || JSON.stringify(o.ids) !== JSON.stringify(want);
}

/** Smaller filters to try in place of `n`: a child alone, a child less, a shorter list. */
function shrinks(n: Node): Node[] {
  switch (n.k) {
    case 'and':
    case 'or':
      return [...n.items, ...n.items.map((_, i) => ({ ...n, items: n.items.filter((__, j) => j !== i) })).filter((x) => x.items.length >= 2)];
    case 'not':
      return [n.item];
    case 'set':
      return n.values.length > 1 ? n.values.map((_, i) => ({ ...n, values: n.values.filter((__, j) => j !== i) })) : [];
    default:
      return [];
  }
}

/** All ways to replace one subtree of `n` by one of its shrinks. */
function variants(n: Node): Node[] {
  const out = [...shrinks(n)];
  if (n.k === 'and' || n.k === 'or') n.items.forEach((c, i) => variants(c).forEach((v) => out.push({ ...n, items: n.items.map((x, j) => (j === i ? v : x)) })));
  if (n.k === 'not') variants(n.item).forEach((v) => out.push({ ...n, item: v }));
  return out;
}

const fixed = createRandom(1);

/** The smallest filter (greedy) that still disagrees with the reference, in at most `budget` runs. */
async function minimise(n: Node, budget = 40): Promise<Node> {
  let current = n;
  let left = budget;
  for (let progress = true; progress && left > 0; ) {
    progress = false;
    for (const v of variants(current)) {
      if (left-- <= 0) break;
      if (differs(await queried(['--filter', render(v, fixed)], 1000), expectedIds(v))) {
        current = v;
        progress = true;
        break;
      }
    }
  }
  return current;
}

function describeRows(n: Node, ids: readonly number[]): string {
  const keys = new Set<string>();
  const walk = (x: Node): void => {
    if (x.k === 'cond' || x.k === 'set' || x.k === 'null') keys.add(x.field.key);
    else if (x.k === 'not') walk(x.item);
    else x.items.forEach(walk);
  };
  walk(n);
  return ids
    .slice(0, 6)
    .map((id) => {
      const row = rows.find((x) => x.ID === id) ?? {};
      return `  ID ${id}: ${JSON.stringify(Object.fromEntries([...keys].map((k) => [k, row[k]])))}`;
    })
    .join('\n');
}

// ---------------------------------------------------------------- exact sums

/** A decimal text as numerator and power of ten: "1.5e-3" → 15n, 4. */
function decimal(text: string): { n: bigint; scale: number } {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!m) throw new Error(`not a decimal: ${text}`);
  const digits = `${m[2] ?? ''}${m[3] ?? ''}` || '0';
  const scale = (m[3] ?? '').length - Number(m[4] ?? 0);
  const n = BigInt(digits) * (m[1] === '-' ? -1n : 1n);
  return scale >= 0 ? { n, scale } : { n: n * 10n ** BigInt(-scale), scale: 0 };
}

function sameDecimal(a: string, b: string): boolean {
  const x = decimal(a);
  const y = decimal(b);
  const s = Math.max(x.scale, y.scale);
  return x.n * 10n ** BigInt(s - x.scale) === y.n * 10n ** BigInt(s - y.scale);
}

function exactSum(values: readonly number[]): string {
  const parts = values.map((v) => decimal(String(v)));
  const scale = Math.max(0, ...parts.map((p) => p.scale));
  const total = parts.reduce((acc, p) => acc + p.n * 10n ** BigInt(scale - p.scale), 0n);
  const neg = total < 0n;
  const digits = (neg ? -total : total).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale > 0 ? `.${digits.slice(digits.length - scale)}` : ''}`;
}

// ---------------------------------------------------------------- the tests

describe('HELD: the data went in and came back as sent', () => {
  it('every record created is read back by query --all -o json, with its hostile values unchanged', () => {
    const ids = new Set(rows.map((x) => Number(x.ID)));
    for (const id of mine) expect(ids.has(id), `ID ${id}`).toBe(true);
    const names = new Set(rows.map((x) => x.name));
    for (const t of LINE_TEXTS.slice(0, 48)) expect(names.has(t), JSON.stringify(t)).toBe(true);
    expect(rows.some((x) => x.xs === 5e-324)).toBe(true);
    expect(rows.some((x) => x.al === null)).toBe(true);
    expect(rows.some((x) => x.date === 253402300799)).toBe(true);
  });

  it('HELD: as reader, the Staff group\'s opportunities are not listed and its accounts read as null through account.*', () => {
    const seen = views.get('reader') ?? [];
    expect(seen.length).toBeGreaterThan(0);
    for (const id of hidden.opportunities) expect(seen.some((x) => x.ID === id)).toBe(false);
    const through = seen.filter((x) => hidden.accounts.includes(Number(x.account)));
    expect(through.length).toBeGreaterThan(0);
    for (const x of through) expect([x.al, x.at, x.ak]).toEqual([null, null, null]);
  });

  it('HELD: exists answers 3 (not found) to reader for the Staff group\'s opportunities, and 0 to demo', async () => {
    for (const id of hidden.opportunities) {
      expect((await run(['opportunities', 'exists', String(id)], { user: 'reader' })).code).toBe(3);
      expect((await run(['opportunities', 'exists', String(id)])).code).toBe(0);
    }
  });

  it.each(DATE_LITERALS)('--tz Europe/Berlin: date = %s is sent as the documented moment %d', async (text, seconds) => {
    const r = ok(await run(['opportunities', 'count', '--tz', TZ, '--filter', `date = ${text}`, '--explain']), text);
    expect(JSON.parse(r.stdout)).toEqual({ date: seconds });
  });
});

const ROUNDS = 4;
const PER_ROUND = 80;

describe(`HELD: random filters against the reference (seed ${SEED}; replay with SVC_S9_SEED=<n>)`, () => {
  it.each(Array.from({ length: ROUNDS }, (_, i) => [i]))(
    'round %i: query --all, count, sum and export agree with the reference and with each other (the last round as the user reader)',
    async (round) => {
      user = round === ROUNDS - 1 ? 'reader' : 'demo';
      rows = views.get(user) ?? [];
      const r = createRandom(SEED * 31 + round);
      const problems: string[] = [];
      let nonTrivial = 0;
      for (let i = 0; i < PER_ROUND && problems.length < 3; i++) {
        const node = expression(r, 0);
        const args = filterArgs(node, r);
        const want = expectedIds(node);
        if (want.length > 0 && want.length < rows.length) nonTrivial++;
        const got = await queried(args, r.pick([1, 3, 7, 50, 1000]));
        if (differs(got, want)) {
          const small = await minimise(node);
          const smallWant = expectedIds(small);
          const smallGot = await queried(['--filter', render(small, fixed)], 1000);
          const extra = (smallGot.ids ?? []).filter((id) => !smallWant.includes(id));
          const missing = smallWant.filter((id) => !(smallGot.ids ?? []).includes(id));
          problems.push(
            [
              `filter ${JSON.stringify(args)}`,
              `  minimised: --filter ${JSON.stringify(render(small, fixed))}`,
              smallGot.error ? `  svc: ${smallGot.error}` : `  svc returned ${extra.length} record(s) the reference rejects and missed ${missing.length} it accepts`,
              describeRows(small, [...extra, ...missing]),
            ].join('\n'),
          );
          continue;
        }
        if (i % 2 === 0) {
          // The same filter as --filter-json, or through --filter-file, or half and half.
          const json = JSON.stringify(asObject(toJson(node)));
          const how = r.int(0, 2);
          let jsonArgs: string[];
          if (how === 0) jsonArgs = ['--filter-json', json];
          else if (how === 1) {
            const file = fresh('f.json');
            writeFileSync(file, json);
            jsonArgs = ['--filter-file', file];
          } else if (node.k === 'and') {
            const [first, ...rest] = node.items;
            jsonArgs = ['--filter-json', JSON.stringify(asObject(toJson(first ?? node))), ...rest.flatMap((c) => ['--filter', render(c, r)])];
          } else jsonArgs = ['--filter-json', json];
          const viaJson = await queried(jsonArgs, r.pick([2, 1000]));
          if (differs(viaJson, want)) {
            problems.push(`${JSON.stringify(jsonArgs)}\n  from --filter ${JSON.stringify(args)}\n  svc: ${viaJson.error ?? `${JSON.stringify(viaJson.ids)}, expected ${JSON.stringify(want)}`}`);
            continue;
          }
        }
        const c = await run(['opportunities', 'count', ...args, '--tz', TZ], { user });
        if (c.code !== 0 || (JSON.parse(c.stdout) as { count: number }).count !== want.length) {
          problems.push(`count ${JSON.stringify(args)}: exit ${c.code} ${c.stdout.trim()} ${c.stderr.trim()}; query has ${want.length} rows`);
        }
        if (i % 5 === 2 && want.length > 0) {
          // exists takes an ID, not a filter: each ID the filter returned exists for the same user.
          const id = r.pick(want);
          const x = await run(['opportunities', 'exists', String(id)], { user });
          if (x.code !== 0) problems.push(`exists ${id} (returned by ${JSON.stringify(args)}) as ${user}: exit ${x.code} ${x.stderr.trim()}`);
        }
        if (i % 3 === 0) {
          const s = await run(['opportunities', 'sum', 'worstcase', ...args, '--tz', TZ, '--page-size', String(r.pick([2, 5, 1000])), '-o', 'json'], { user });
          const total = exactSum(rows.filter((x) => want.includes(Number(x.ID))).map((x) => Number(x.worstcase)));
          const got2 = s.code === 0 ? (JSON.parse(s.stdout) as { sum: number | string; count: number }) : undefined;
          if (!got2 || got2.count !== want.length || !sameDecimal(String(got2.sum), total)) {
            problems.push(`sum worstcase ${JSON.stringify(args)}: exit ${s.code} ${s.stdout.trim()} ${s.stderr.trim()}; expected ${total} over ${want.length}`);
          }
        }
        if (i % 4 === 1) {
          const e = await run(['opportunities', 'export', ...args, '--tz', TZ, '--format', 'ndjson', '--fields', 'ID', '--page-size', String(r.pick([3, 1000]))], { user });
          const ids = e.stdout
            .split('\n')
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { ID: number }).ID)
            .sort((a, b) => a - b);
          if (e.code !== 0 || JSON.stringify(ids) !== JSON.stringify(want)) {
            problems.push(`export ${JSON.stringify(args)}: exit ${e.code} ${e.stderr.trim()}; ${ids.length} IDs, expected ${want.length}`);
          }
        }
      }
      expect(problems, problems.join('\n\n')).toEqual([]);
      expect(nonTrivial, 'filters that select some but not all records').toBeGreaterThan(PER_ROUND / 5);
    },
    60_000,
  );
});

describe(`an export with a seeded filter, stopped at a seeded request and resumed, against a sandbox failing 15% of requests (seed ${SEED})`, () => {
  const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGKILL'] as const;
  it.each([1, 4].flatMap((c) => SIGNALS.map((sig) => [c, sig] as const)))(
    'HELD: --concurrency %i, %s: the target is untouched until done, and --resume converges to exactly the filtered IDs',
    async (concurrency, signal) => {
      user = 'demo';
      rows = views.get('demo') ?? [];
      const r = createRandom(SEED * 7 + concurrency * 3 + SIGNALS.indexOf(signal));
      let node = expression(r, 0);
      let want = expectedIds(node);
      for (let k = 0; k < 500 && (want.length < 8 || want.length > 40); k++) {
        node = expression(r, 0);
        want = expectedIds(node);
      }
      const text = render(node, r);
      const out = fresh('out.ndjson');
      const args = ['opportunities', 'export', '--filter', text, '--tz', TZ, '--format', 'ndjson', '--fields', 'ID', '--page-size', '2', '--concurrency', String(concurrency), '--output', out];
      const at = r.int(1, 4);
      const hooks = sandbox().sandbox.hooks;
      hooks.setFaultRate(0.15, SEED + concurrency);
      try {
        let seen = 0;
        const svc = spawned.start(args);
        hooks.onArrival = (method, url) => {
          if (method === 'POST' && url.includes('/opportunities') && ++seen === at) svc.child.kill(signal);
        };
        const end = await svc.ended;
        hooks.onArrival = undefined;
        const context = `--filter ${JSON.stringify(text)}, signal at POST ${at} of ${seen}: exit ${end.code} ${end.signal ?? ''} ${end.stderr.trim()}`;
        expect(seen, `the export made ${seen} requests, fewer than the ${at} the signal waited for`).toBeGreaterThanOrEqual(at);
        if (end.code !== 0) {
          if (signal === 'SIGKILL') expect(end.signal, context).toBe('SIGKILL');
          else expect(end.code, context).toBe(130);
          expect(existsSync(out), `${context}: a file at the target before the export finished`).toBe(false);
        }
        let last = end;
        for (let tries = 0; tries < 6 && last.code !== 0; tries++) last = await spawned.run([...args, '--resume']);
        expect(last.code, `${context}; resumed: ${last.stderr.trim()}`).toBe(0);
        const ids = readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { ID: number }).ID);
        expect(ids, context).toEqual(want);
      } finally {
        hooks.onArrival = undefined;
        hooks.setFaultRate(0);
      }
    },
    20_000,
  );
});

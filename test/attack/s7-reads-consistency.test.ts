/**
 * s7-reads: the read verbs agree with each other. For a seeded series of random
 * filters in the language, `count`, `query --all` (small pages), one `query`
 * page and `sum ID` must describe the same set of records; `exists` and `get`
 * must agree; `--fields` with duplicates, aliases and paths.
 *
 * Replay: S7_READS_SEED=<n> npx vitest run test/attack/s7-reads-consistency.test.ts
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();
const SEED = Number(process.env.S7_READS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const FILTERS = 24;

beforeAll(() => {
  // A few awkward accounts beside the seeded ones: no contact, a contact without a city, blanks and unicode.
  const db = sandbox().sandbox.db;
  const now = Math.floor(Date.now() / 1000);
  const contact = prepareInsert(db, 'demo', 'contacts', ['lastname', 'city', 'creationdate', 'lastmodified']);
  const noCity = contact(['S7 no city', '', now, now]);
  const account = prepareInsert(db, 'demo', 'accounts', ['lastname', 'firstname', 'currency', 'type', 'contact', 'locked', 'creationdate', 'lastmodified']);
  account(['S7 Ärger & Söhne', '', 'EUR', 1, null, 1, now - 86_400 * 400, now - 86_400 * 400]);
  account(['s7 lower', 'Zoë', 'USD', 2, noCity, 0, now, now]);
  account(['S7 %_like', 'x', 'CHF', 5, noCity, 1, now - 3600, now - 3600]);
  account(['S7 東京', 'İ', 'JPY', 0, null, 0, now, now]);
});

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

/** One random condition of the filter language over accounts. */
function atom(r: () => number): string {
  const n = Math.floor(r() * 80);
  return pick(r, [
    `type = ${pick(r, ['PROSPECT', 'CUSTOMER', 'SUPPLIER', 'CUSTOMERANDSUPPLIER', 'COMPETITOR', 'EMPLOYEE'])}`,
    `type in (${pick(r, ['CUSTOMER, SUPPLIER', 'PROSPECT', '0, 5, 2'])})`,
    `type not in (CUSTOMER, PROSPECT)`,
    `type != CUSTOMER`,
    `ID > ${n}`,
    `ID <= ${n}`,
    `lastname ~* "${pick(r, ['^[a-m]', 'gmbh', 's7', 'ö', '^.{0,8}$'])}"`,
    `lastname ${pick(r, ['like', 'ilike', 'not like', 'not ilike'])} "${pick(r, ['%a%', 'S7%', '%\\%%', '_7%', '%ag'])}"`,
    `lastname !~ "[0-9]"`,
    `contact.city = ${pick(r, ['Berlin', 'Wien', 'Köln', 'Hamburg'])}`,
    `contact.city is null`,
    `contact.city is not null`,
    `contact is null`,
    `contact.city ~* "^${pick(r, ['b', 'w', 'k', 'z'])}"`,
    `locked = ${pick(r, ['true', 'false'])}`,
    `currency in (EUR, USD)`,
    `currency != EUR`,
    `firstname = ""`,
    `firstname != ""`,
    `lastmodified >= -${pick(r, ['1d', '30d', '365d', '3650d'])}`,
    `creationdate < today`,
  ]);
}

function expr(r: () => number, depth: number): string {
  if (depth <= 0 || r() < 0.35) return atom(r);
  const k = r();
  if (k < 0.15) return `not (${expr(r, depth - 1)})`;
  const op = k < 0.6 ? 'and' : 'or';
  return `(${expr(r, depth - 1)} ${op} ${expr(r, depth - 1)})`;
}

describe(`HELD: count, query --all, one query page and sum agree on random filters (seed ${SEED}; replay with S7_READS_SEED=${SEED})`, () => {
  const r = createRandom(SEED).next;
  const filters = Array.from({ length: FILTERS }, () => expr(r, 3));
  const pageSizes = filters.map(() => 1 + Math.floor(r() * 9));

  it.each(filters.map((f, i) => [i, f, pageSizes[i] ?? 5] as const))('filter %i: %s (page size %i)', async (_i, filter, pageSize) => {
    const count = await run(['accounts', 'count', '--filter', filter, '--tz', 'UTC']);
    expect(count.code, count.stderr).toBe(0);
    const n = (JSON.parse(count.stdout) as { count: number }).count;

    const all = await run(['accounts', 'query', '--all', '--page-size', String(pageSize), '--fields', 'ID', '-o', 'ndjson', '--filter', filter, '--tz', 'UTC']);
    expect(all.code, all.stderr).toBe(0);
    const ids = all.stdout.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { ID: number }).ID);
    expect(ids.length, `count said ${n}`).toBe(n);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    const page = await run(['accounts', 'query', '--limit', '10000', '--fields', 'ID', '--sort', '+ID', '--filter', filter, '--tz', 'UTC']);
    expect(page.code, page.stderr).toBe(0);
    expect((JSON.parse(page.stdout) as { ID: number }[]).map((x) => x.ID)).toEqual(ids);

    const sum = await run(['accounts', 'sum', 'ID', '--page-size', String(pageSize + 3), '--filter', filter, '--tz', 'UTC']);
    expect(sum.code, sum.stderr).toBe(0);
    expect(JSON.parse(sum.stdout)).toEqual({ field: 'ID', sum: ids.reduce((a, b) => a + b, 0), count: n, nulls: 0 });
  });
});

describe('exists and get agree', () => {
  it.each([['1'], ['2'], ['999999'], ['2147483647'], ['0'], ['007'], ['abc']])('HELD: accounts %s: exists exits as get does (0, 3, or 2 for an invalid ID), printing nothing', async (id) => {
    const e = await run(['accounts', 'exists', id]);
    const g = await run(['accounts', 'get', id]);
    expect([0, 2, 3]).toContain(e.code);
    expect(e.code, `${e.stderr} | ${g.stderr}`).toBe(g.code);
    expect(e.stdout).toBe('');
  });

  it.each([['exists'], ['get']])('%s 9007199254740993 on accounts (int32 IDs) is exit 2 before anything is sent, as the filter ID = 9007199254740993 is', async (verb) => {
    const f = await run(['accounts', 'count', '--filter', 'ID = 9007199254740993']);
    expect(f.code).toBe(2);
    const r = await run(['accounts', verb, '9007199254740993']);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^svc: .*9007199254740993/);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('HELD: a deleted record: exists 3, get 3, both naming nothing on stdout', async () => {
    const c = await run(['accounts', 'create', 'lastname=S7 gone', 'currency=EUR', '-o', 'json']);
    const id = String((JSON.parse(c.stdout) as { ID: number }).ID);
    expect((await run(['accounts', 'delete', id, '--yes'])).code).toBe(0);
    const e = await run(['accounts', 'exists', id]);
    const g = await run(['accounts', 'get', id]);
    expect([e.code, g.code]).toEqual([3, 3]);
    expect(e.stdout + g.stdout).toBe('');
  });
});

describe('--fields', () => {
  it('HELD: duplicates are asked once; a dotted path comes back under its path', async () => {
    const r = await run(['accounts', 'query', '--fields', 'ID,ID,contact.city,contact.city', '--limit', '1', '--sort', '+ID']);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys((JSON.parse(r.stdout) as Record<string, unknown>[])[0] ?? {})).toEqual(['ID', 'contact.city']);
  });

  it('HELD: an unknown field and an unknown related field are exit 2 with a suggestion, nothing sent', async () => {
    const a = await run(['accounts', 'query', '--fields', 'ID,lastnme']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/lastnme.*did you mean 'lastname'/);
    const b = await run(['accounts', 'query', '--fields', 'contact.cty']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/did you mean 'city'/);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('one alias given twice (x=lastname,x=firstname) is refused with exit 2, not one of the two silently dropped', async () => {
    const r = await run(['accounts', 'query', '--fields', 'ID,x=lastname,x=firstname', '--limit', '1']);
    expect(r.code, r.stdout).toBe(2);
    expect(r.stderr).toMatch(/^svc: .*'x'.*/);
    expect(r.stdout).toBe('');
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });

  it('an empty item in the list (ID,,lastname) is refused with exit 2 rather than ignored', async () => {
    const r = await run(['accounts', 'query', '--fields', 'ID,,lastname', '--limit', '1']);
    expect(r.code, r.stdout).toBe(2);
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});

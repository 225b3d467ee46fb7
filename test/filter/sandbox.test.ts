import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFamily, type ResourceFamily } from '../../src/catalogue/index.js';
import { combineFilters, compileFilter, renderFilterError } from '../../src/filter/index.js';
import { table } from '../../src/sandbox/schema.js';
import { useTestSandbox } from '../helpers/sandbox.js';

/** Wednesday 18 November 2026, 15:30 in Berlin. */
const NOW = Date.UTC(2026, 10, 18, 14, 30, 0);
const at = (iso: string): number => Date.parse(iso) / 1000;

/** What the test knows of each account it created, to decide matches without the sandbox. */
interface Model {
  readonly id: number;
  readonly lastname: string;
  readonly firstname: string;
  readonly type: number;
  readonly locked: number;
  readonly creationdate: number;
  readonly contact: { readonly lastname: string; readonly city: string } | null;
  readonly extdata: { readonly score?: number; readonly tier?: string };
}
let accounts: ResourceFamily;
let models: Model[] = [];

async function put(family: string, body: Record<string, unknown>): Promise<number> {
  const r = await s.call('PUT', `api/v1/${family}`, { json: body });
  expect(r.status, r.text).toBe(201);
  return r.json<{ ID: number }>().ID;
}

const s = useTestSandbox();

beforeAll(async () => {
  const found = findFamily('accounts');
  if (!found) throw new Error('no accounts');
  accounts = found;
  const people = [
    { lastname: 'Berger', city: 'Berlin' },
    { lastname: 'Müller', city: 'München' },
    { lastname: 'Zorn', city: '' },
  ];
  const contactIds = await Promise.all(people.map((p) => put('contacts', p)));
  const rows: Omit<Model, 'id'>[] = [
    { lastname: 'Alpha GmbH', firstname: '', type: 1, locked: 0, creationdate: at('2026-11-02T10:00:00Z'), contact: people[0] ?? null, extdata: { score: 5, tier: 'gold' } },
    { lastname: 'Beta AG', firstname: '', type: 1, locked: 1, creationdate: at('2026-10-15T00:00:00Z'), contact: people[1] ?? null, extdata: { score: 12 } },
    { lastname: 'Gamma KG', firstname: '', type: 2, locked: 0, creationdate: at('2026-11-17T23:30:00Z'), contact: null, extdata: { tier: 'silver' } },
    { lastname: 'delta gmbh', firstname: '', type: 0, locked: 0, creationdate: at('2026-11-18T12:00:00Z'), contact: people[2] ?? null, extdata: {} },
    { lastname: 'Epsilon', firstname: 'Émile', type: 4, locked: 1, creationdate: at('2026-10-31T22:30:00Z'), contact: people[0] ?? null, extdata: {} },
    { lastname: 'Zeta', firstname: '', type: 5, locked: 0, creationdate: at('2026-11-01T00:00:00Z'), contact: null, extdata: { score: 10 } },
  ];
  models = [];
  for (const row of rows) {
    const contact = row.contact ? contactIds[people.indexOf(row.contact)] : null;
    const body = { currency: 'EUR', lastname: row.lastname, firstname: row.firstname, type: row.type, locked: row.locked, contact, extdata: row.extdata };
    const id = await put('accounts', body);
    // The service sets creationdate itself (a body may not): backdate it in the database.
    s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET creationdate = ? WHERE "ID" = ?`).run(row.creationdate, id);
    models.push({ ...row, id });
  }
});

/** The IDs of this file's accounts that the sandbox returns for a compiled filter. */
async function served(filter: Record<string, unknown>): Promise<number[]> {
  const r = await s.call('POST', 'api/v1/accounts', { json: { filters: filter, fields: ['ID'], limit: 10000 } });
  expect(r.status, `${r.text}\n${JSON.stringify(filter)}`).toBe(200);
  const mine = new Set(models.map((m) => m.id));
  return r.json<{ ID: number }[]>().map((x) => x.ID).filter((id) => mine.has(id)).sort((a, b) => a - b);
}

function compiled(text: string): Record<string, unknown> {
  const r = compileFilter(text, accounts, { now: NOW, timeZone: 'Europe/Berlin' });
  if (!r.ok) throw new Error(renderFilterError(text, r.error));
  return r.filter;
}

/** The IDs the test expects, decided in plain code; SQL's NULL rules are spelt out where they matter. */
function expected(test: (m: Model) => boolean): number[] {
  return models.filter(test).map((m) => m.id).sort((a, b) => a - b);
}

const berlinToday = at('2026-11-17T23:00:00Z');
const berlinMonth = at('2026-10-31T23:00:00Z');

const CASES: readonly (readonly [string, (m: Model) => boolean])[] = [
  ['type = CUSTOMER', (m) => m.type === 1],
  ['type in (CUSTOMER, supplier) and not locked = true', (m) => (m.type === 1 || m.type === 2) && m.locked !== 1],
  ['type not in (PROSPECT, COMPETITOR)', (m) => m.type !== 0 && m.type !== 4],
  ['type != CUSTOMER and type != SUPPLIER', (m) => m.type !== 1 && m.type !== 2],
  ['type = 1 or type = 2 and locked = 1', (m) => m.type === 1 || (m.type === 2 && m.locked === 1)],
  ['(type = 1 or type = 2) and locked = 0', (m) => (m.type === 1 || m.type === 2) && m.locked === 0],
  ['not (type = 1 or locked = 1)', (m) => !(m.type === 1 || m.locked === 1)],
  ['not not type = 5', (m) => m.type === 5],
  ['lastname ilike "%gmbh"', (m) => /gmbh$/i.test(m.lastname)],
  ['lastname like "%gmbh"', (m) => m.lastname.endsWith('gmbh')],
  ['lastname not like "%G%"', (m) => !m.lastname.includes('G')],
  ['lastname ~ "^[A-Z]" and lastname !~* "a$"', (m) => /^[A-Z]/.test(m.lastname) && !/a$/i.test(m.lastname)],
  ['lastname matches "\\s" or firstname imatches "^é"', (m) => /\s/.test(m.lastname) || /^é/i.test(m.firstname)],
  ['lastname in (Zeta, "Beta AG") or lastname = epsilon', (m) => m.lastname === 'Zeta' || m.lastname === 'Beta AG'],
  ['firstname != ""', (m) => m.firstname !== ''],
  ['contact.city = Berlin', (m) => m.contact?.city === 'Berlin'],
  ['contact.city ~* "^m" or contact is null', (m) => m.contact === null || /^m/i.test(m.contact.city)],
  // NOT of a comparison with a missing related record is unknown in SQL, so the record is not listed.
  ['not contact.city = Berlin', (m) => m.contact !== null && m.contact.city !== 'Berlin'],
  ['contact.lastname != Berger', (m) => m.contact !== null && m.contact.lastname !== 'Berger'],
  ['contact is not null and contact.city = ""', (m) => m.contact !== null && m.contact.city === ''],
  ['extdata.score >= 10 or extdata.tier = gold', (m) => (m.extdata.score ?? -Infinity) >= 10 || m.extdata.tier === 'gold'],
  ['extdata.tier is null', (m) => m.extdata.tier === undefined],
  ['extdata.score is not null and extdata.score < 11', (m) => m.extdata.score !== undefined && m.extdata.score < 11],
  ['creationdate >= startofmonth and creationdate < today', (m) => m.creationdate >= berlinMonth && m.creationdate < berlinToday],
  ['creationdate >= -1d', (m) => m.creationdate >= NOW / 1000 - 86400],
  ['creationdate < 2026-11-01', (m) => m.creationdate < at('2026-10-31T23:00:00Z')],
  ['creationdate >= 2026-11-02T11:00 and creationdate <= "2026-11-18T12:00Z"', (m) => m.creationdate >= at('2026-11-02T10:00:00Z') && m.creationdate <= at('2026-11-18T12:00:00Z')],
];

describe('compiled filters against the sandbox (two implementations checked against each other)', () => {
  it.each(CASES)('%s', async (text, test) => {
    const want = expected(test);
    expect(await served(compiled(text))).toEqual(want);
  });

  it('the cases are not trivial: each matches some but not all records, across the set', () => {
    const sizes = CASES.map(([, test]) => expected(test).length);
    expect(sizes.filter((n) => n > 0 && n < models.length).length).toBeGreaterThan(CASES.length - 3);
  });

  it('combined --filter and --filter-json parts AND together, colliding members included', async () => {
    const parts = [compiled('type = 1 or type = 2'), compiled('locked = 0'), { locked: { '!=': 1 }, type: { IN: [1, 2, 4] } }, compiled('type != 2')];
    const combined = combineFilters(parts);
    expect(await served(combined)).toEqual(expected((m) => (m.type === 1 || m.type === 2) && m.locked === 0 && m.type !== 2));
    const clash = combineFilters([compiled('type = 1'), compiled('type = 2')]);
    expect(clash).toEqual({ type: 1, 0: ['AND', { type: 2 }] });
    expect(await served(clash)).toEqual([]);
  });
});

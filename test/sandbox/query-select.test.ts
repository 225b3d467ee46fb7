import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { createQueryFixture, query, queryForm, rows, type QueryFixture } from './query-fixture.js';
let fx: QueryFixture;
/** Only the accounts this file created (they come after every seeded one). */
let scope: Record<string, unknown>;

const s = useTestSandbox();

beforeAll(async () => {
  fx = await createQueryFixture(s);
  scope = { ID: { '>=': fx.accounts.alpha } };
});

function names(records: Record<string, unknown>[]): unknown[] {
  return records.map((r) => r.lastname);
}

describe('query: selected fields', () => {
  it('returns every field of the family by default, typed as stored', async () => {
    const [alpha] = await rows(s, 'accounts', { filter: { ID: fx.accounts.alpha } });
    expect(alpha).toMatchObject({ ID: fx.accounts.alpha, lastname: 'Alpha GmbH', type: 1, contact: fx.contacts.berlin, locked: 0, currency: 'EUR', description: '' });
    expect(typeof alpha?.creationdate).toBe('number');
    const get = await s.call('GET', `api/v1/accounts/${fx.accounts.alpha}`);
    expect(Object.keys(alpha ?? {}).sort()).toEqual(Object.keys(get.json<object>()).sort());
  });

  it('selects fields as an array, related paths by their path name', async () => {
    const out = await rows(s, 'accounts', { filter: scope, fields: ['lastname', 'contact.city', 'contact.lastname'], limit: 2 });
    expect(out).toEqual([
      { lastname: 'Alpha GmbH', 'contact.city': 'Berlin', 'contact.lastname': 'Berger' },
      { lastname: 'Beta AG', 'contact.city': 'München', 'contact.lastname': 'Müller' },
    ]);
  });

  it('selects fields as an alias object (numeric keys mean no alias)', async () => {
    const out = await rows(s, 'accounts', { filter: { ID: fx.accounts.delta }, fields: { name: 'lastname', city: 'contact.city', 0: 'ID' } });
    expect(out).toEqual([{ name: 'MÜNCHEN Delta', city: null, ID: fx.accounts.delta }]);
  });

  it('selects extension fields, decoded, and null where a record has none', async () => {
    const out = await rows(s, 'accounts', { filter: scope, fields: ['lastname', 'extdata.score', 'extdata.tier'], limit: 4 });
    expect(out.map((r) => [r['extdata.score'], r['extdata.tier']])).toEqual([
      [5, 'gold'],
      [12, 'silver'],
      [7, null],
      [null, null],
    ]);
  });

  it('takes fields, sort and limit from a form', async () => {
    const form = `filter[ID][${encodeURIComponent('>=')}]=${fx.accounts.alpha}&fields[who]=lastname&fields[where]=contact.city&fields[]=ID&sort[]=-ID&limit=2`;
    const r = await queryForm(s, 'accounts', form);
    expect(r.status, r.text).toBe(200);
    expect(r.json()).toEqual([
      { who: 'zeta kg', where: '', ID: fx.accounts.zeta },
      { who: 'Epsilon', where: 'Berlin', ID: fx.accounts.epsilon },
    ]);
  });
});

describe('query: order and paging', () => {
  it('orders by ID without a sort and pages with limit and offset', async () => {
    const all = await rows(s, 'accounts', { filter: scope, fields: ['ID'] });
    expect(all.map((r) => r.ID)).toEqual(Object.values(fx.accounts));
    const pages: unknown[] = [];
    for (let offset = 0; offset < 6; offset += 4) pages.push(...(await rows(s, 'accounts', { filter: scope, fields: ['ID'], limit: 4, offset })));
    expect(pages).toEqual(all);
    expect(await rows(s, 'accounts', { filter: scope, fields: ['ID'], limit: '2', offset: '5' })).toEqual([{ ID: fx.accounts.zeta }]);
    expect(await rows(s, 'accounts', { filter: scope, offset: 6 })).toEqual([]);
  });

  it('applies the default limit of 1000', async () => {
    const r = await rows(s, 'binfiles', { fields: ['ID'] });
    expect(r.length).toBeLessThanOrEqual(1000);
    const count = (await query(s, 'accounts', { count: true })).json<{ count: number }>().count;
    const listed = await rows(s, 'accounts', { fields: ['ID'] });
    expect(listed.length).toBe(Math.min(count, 1000));
  });

  it('sorts ascending, descending, by several keys and by a single string', async () => {
    expect(names(await rows(s, 'accounts', { filter: scope, fields: ['lastname'], sort: ['lastname'] }))).toEqual(['Alpha GmbH', 'Beta AG', 'Epsilon', 'Gamma_50%', 'MÜNCHEN Delta', 'zeta kg']);
    expect(names(await rows(s, 'accounts', { filter: scope, fields: ['lastname'], sort: '-lastname' }))).toEqual(['zeta kg', 'MÜNCHEN Delta', 'Gamma_50%', 'Epsilon', 'Beta AG', 'Alpha GmbH']);
    expect(names(await rows(s, 'accounts', { filter: scope, fields: ['lastname'], sort: ['+type', '-lastname'] }))).toEqual(['MÜNCHEN Delta', 'zeta kg', 'Beta AG', 'Alpha GmbH', 'Gamma_50%', 'Epsilon']);
  });

  it('sorts by related paths and extension fields, NULLs last ascending and first descending', async () => {
    const byCity = await rows(s, 'accounts', { filter: scope, fields: ['lastname', 'contact.city'], sort: ['contact.city'] });
    expect(byCity.map((r) => r['contact.city'])).toEqual(['', 'Berlin', 'Berlin', 'Bonn', 'München', null]);
    expect(names(byCity).slice(1, 3)).toEqual(['Alpha GmbH', 'Epsilon']); // ID breaks the tie.
    const byScore = await rows(s, 'accounts', { filter: scope, fields: ['lastname'], sort: ['-extdata.score'] });
    expect(names(byScore)).toEqual(['MÜNCHEN Delta', 'Epsilon', 'zeta kg', 'Beta AG', 'Gamma_50%', 'Alpha GmbH']);
  });
});

describe('query: count, distinct, search', () => {
  it('counts, ignoring fields, sort, limit, offset and expand', async () => {
    const r = await query(s, 'accounts', { filter: scope, count: true, fields: ['nope'], sort: ['-nope'], limit: 0, offset: 3, expand: ['nope'] });
    expect(r.status, r.text).toBe(200);
    expect(r.json()).toEqual({ count: 6 });
    const form = `filter[contact.city]=Berlin&filter[ID][${encodeURIComponent('>=')}]=${fx.accounts.alpha}`;
    expect((await queryForm(s, 'accounts', `${form}&count=1`)).json()).toEqual({ count: 2 });
    expect((await queryForm(s, 'accounts', `${form}&count=true`)).json()).toEqual({ count: 2 });
    expect((await queryForm(s, 'accounts', `${form}&count=0&fields[]=ID`)).json()).toEqual([{ ID: fx.accounts.alpha }, { ID: fx.accounts.epsilon }]);
  });

  it('returns distinct rows over the selected fields', async () => {
    const out = await rows(s, 'accounts', { filter: scope, fields: ['type'], distinct: true });
    expect(out).toEqual([{ type: 0 }, { type: 1 }, { type: 2 }, { type: 4 }]);
    const cities = await rows(s, 'accounts', { filter: scope, fields: { city: 'contact.city' }, distinct: 1, sort: ['-contact.city'] });
    expect(cities).toEqual([{ city: null }, { city: 'München' }, { city: 'Bonn' }, { city: 'Berlin' }, { city: '' }]);
  });

  it('searches every term in the searchable text fields, ignoring case', async () => {
    const search = async (q: string): Promise<unknown[]> => names(await rows(s, 'accounts', { filter: scope, fields: ['lastname'], query: q }));
    expect(await search('münchen')).toEqual(['MÜNCHEN Delta']);
    expect(await search('k-')).toEqual(['Alpha GmbH', 'Beta AG', 'zeta kg']);
    expect(await search('émile')).toEqual(['Epsilon']);
    expect(await search('qt- gmbh')).toEqual(['Alpha GmbH']);
    expect(await search('50%')).toEqual(['Gamma_50%']);
    expect(await search('_')).toEqual(['Gamma_50%']);
    expect(await search('USD')).toEqual([]); // currency is a code, not searchable text
    expect(await search('  ')).toHaveLength(6);
  });
});

describe('query: expand', () => {
  it('reads a bin file field as its ID, or its content when expanded', async () => {
    const plain = await rows(s, 'contacts', { filter: { ID: fx.contacts.berlin }, fields: ['picbinfile'] });
    expect(typeof plain[0]?.picbinfile).toBe('number');
    const expanded = await rows(s, 'contacts', { filter: { ID: fx.contacts.berlin }, fields: ['picbinfile'], expand: ['picbinfile'] });
    expect(expanded).toEqual([{ picbinfile: { content: fx.picture } }]);
  });

  it('reads JSON fields as text unless expanded', async () => {
    const plain = await rows(s, 'contracts', { filter: { ID: fx.contracts.low }, fields: ['contractitems', 'account.lastname'] });
    expect(typeof plain[0]?.contractitems).toBe('string');
    expect(JSON.parse(plain[0]?.contractitems as string)).toEqual([{ type: 'text', text: 'Low rate' }]);
    expect(plain[0]?.['account.lastname']).toBe('Alpha GmbH');
    const expanded = await rows(s, 'contracts', { filter: { ID: fx.contracts.low }, fields: ['contractitems'], expand: 'contractitems' });
    expect(expanded).toEqual([{ contractitems: [{ type: 'text', text: 'Low rate' }] }]);
  });
});

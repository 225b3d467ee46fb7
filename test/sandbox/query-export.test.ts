import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { useTestSandbox } from '../helpers/sandbox.js';
import { createQueryFixture, query, queryForm, type QueryFixture } from './query-fixture.js';
let fx: QueryFixture;
const BULK = 1200;

const s = useTestSandbox();

beforeAll(async () => {
  fx = await createQueryFixture(s);
  const insert = prepareInsert(s.sandbox.db, 'demo', 'accounts', ['lastname', 'currency', 'taxid']);
  s.sandbox.db.transaction(() => {
    for (let i = 0; i < BULK; i++) insert([`Bulk ${i}`, 'EUR', 'BULK']);
  })();
});


describe('query export', () => {
  it('returns CSV with a header of the selected names, quoting where needed, null as empty', async () => {
    const fields = ['ID', 'lastname', 'description', 'contact.city', 'extdata.tier'];
    const r = await query(s, 'accounts', { export: true, filter: { ID: { IN: [fx.accounts.alpha, fx.accounts.delta] } }, fields });
    expect(r.status, r.text).toBe(200);
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.text.startsWith('ID;lastname;description;contact.city;extdata.tier\r\n')).toBe(true);
    expect(r.text).toContain('"says ""hi""; then\nleaves"');
    expect(parseCsv(r.text, ';')).toEqual([
      ['ID', 'lastname', 'description', 'contact.city', 'extdata.tier'],
      [String(fx.accounts.alpha), 'Alpha GmbH', '', 'Berlin', 'gold'],
      [String(fx.accounts.delta), 'MÜNCHEN Delta', 'says "hi"; then\nleaves', '', ''],
    ]);
  });

  it('has no limit unless one is given', async () => {
    const all = await query(s, 'accounts', { export: 1, filter: { taxid: 'BULK' }, fields: ['lastname'] });
    expect(parseCsv(all.text, ';')).toHaveLength(BULK + 1);
    const page = await query(s, 'accounts', { export: true, filter: { taxid: 'BULK' }, fields: ['lastname'], limit: 2, offset: 1 });
    expect(parseCsv(page.text, ';')).toEqual([['lastname'], ['Bulk 1'], ['Bulk 2']]);
    const listed = await query(s, 'accounts', { filter: { taxid: 'BULK' }, fields: ['ID'] });
    expect(listed.json<unknown[]>()).toHaveLength(1000);
  });

  it('exports every field by default, and takes a form body', async () => {
    const r = await queryForm(s, 'accounts', `export=1&filter[ID]=${fx.accounts.epsilon}`);
    expect(r.status, r.text).toBe(200);
    const [header, row] = parseCsv(r.text, ';');
    const record = (await query(s, 'accounts', { filter: { ID: fx.accounts.epsilon } })).json<Record<string, unknown>[]>()[0] ?? {};
    expect(header).toEqual(Object.keys(record));
    expect(row).toEqual(Object.values(record).map((v) => (v === null ? '' : String(v))));
  });

  it('is for admins only', async () => {
    const r = await query(s, 'accounts', { export: true, fields: ['ID'] }, s.token('reader'));
    expect(r.status).toBe(403);
    expect(r.text).toMatch(/admin/);
    expect((await query(s, 'accounts', { fields: ['ID'], limit: 1 }, s.token('reader'))).status).toBe(200);
  });
});

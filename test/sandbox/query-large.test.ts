import { beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { useTestSandbox } from '../helpers/sandbox.js';

// Correctness on a larger tenant; speed is measured by `npm run bench:sandbox`, not here.
const ACCOUNTS = 10_000;
const CONTACTS = 2_000;
const CITIES = ['Berlin', 'Bonn', 'Bremen', 'Hamburg', 'München', 'Köln', 'Dresden', 'Leipzig'];
const mine: { id: number; type: number; city: string }[] = [];

const s = useTestSandbox();

beforeAll(async () => {
  const db = s.sandbox.db;
  const contact = prepareInsert(db, 'demo', 'contacts', ['lastname', 'city']);
  const account = prepareInsert(db, 'demo', 'accounts', ['lastname', 'currency', 'type', 'contact']);
  db.transaction(() => {
    const contacts: number[] = [];
    for (let i = 0; i < CONTACTS; i++) contacts.push(contact([`Large ${i}`, CITIES[i % CITIES.length]]));
    for (let i = 0; i < ACCOUNTS; i++) {
      const c = i % CONTACTS;
      mine.push({ id: account([`Large account ${i}`, 'EUR', i % 6, contacts[c]]), type: i % 6, city: CITIES[c % CITIES.length] ?? '' });
    }
  })();
}, 60_000);

const first = (): number => mine[0]?.id ?? 0;

describe(`queries over ${ACCOUNTS} accounts`, () => {
  it('pages a filtered set with a related field in ID order, matching the data exactly', async () => {
    const expected = mine.filter((a) => a.type === 1 && /^b/i.test(a.city)).map((a) => a.id);
    const seen: number[] = [];
    for (let offset = 0; ; offset += 1000) {
      const body = { filter: { ID: { '>=': first() }, type: 1, 'contact.city': { '~~*': 'b%' } }, fields: ['ID', 'contact.city'], limit: 1000, offset };
      const page = (await s.call('POST', 'api/v1/accounts', { json: body })).json<{ ID: number; 'contact.city': string }[]>();
      expect(page.every((r) => /^B/.test(r['contact.city']))).toBe(true);
      seen.push(...page.map((r) => r.ID));
      if (page.length < 1000) break;
    }
    expect(seen).toEqual(expected);
  });

  it('counts through a related filter as the data says', async () => {
    const r = await s.call('POST', 'api/v1/accounts', { json: { filter: { ID: { '>=': first() }, 'contact.city': 'Bremen', type: 2 }, count: true } });
    expect(r.json()).toEqual({ count: mine.filter((a) => a.city === 'Bremen' && a.type === 2).length });
  });
});

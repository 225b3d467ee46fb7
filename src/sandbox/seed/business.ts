/**
 * The business records of a seeded tenant. (First cut: accounts with their
 * contacts and addresses; the full deterministic tenant grows from here.)
 */
import type { Db } from '../db.js';
import { prepareInsert } from '../data/store.js';
import type { Identities } from './identities.js';

export interface BusinessSeedOptions {
  /** Number of accounts (each with a contact and an address). */
  readonly accounts: number;
  /** Seconds since the epoch used for dates. */
  readonly now: number;
}

const COMPANIES = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Vandelay', 'Stark', 'Wayne', 'Tyrell', 'Cyberdyne'];
const CITIES = [
  ['Berlin', 'DE'], ['Bern', 'CH'], ['Wien', 'AT'], ['Paris', 'FR'], ['München', 'DE'], ['Zürich', 'CH'], ['London', 'GB'], ['Kraków', 'PL'],
] as const;

export function seedBusinessData(db: Db, instance: string, ids: Identities, opts: BusinessSeedOptions): void {
  const contact = prepareInsert(db, instance, 'contacts', ['lastname', 'firstname', 'type', 'company', 'city', 'country', 'email', 'creator', 'creationdate', 'lastmodified']);
  const account = prepareInsert(db, instance, 'accounts', ['lastname', 'type', 'customernum', 'currency', 'contact', 'assigneduser', 'creator', 'creationdate', 'lastmodified']);
  const address = prepareInsert(db, instance, 'addresses', ['account', 'contact', 'type', 'default', 'creator', 'creationdate', 'lastmodified']);
  const creator = ids.users[0]?.id ?? null;
  for (let i = 0; i < opts.accounts; i++) {
    const [city, country] = CITIES[i % CITIES.length] ?? ['Berlin', 'DE'];
    const name = `${COMPANIES[i % COMPANIES.length]} ${Math.floor(i / COMPANIES.length) + 1}`;
    const when = opts.now - (opts.accounts - i) * 3600;
    const c = contact([name, '', 0, name, city, country, `info${i + 1}@example.com`, creator, when, when]);
    const type = i % 6;
    const customernum = [0, 1, 3, 5].includes(type) ? `C-${String(i + 1).padStart(6, '0')}` : '';
    const a = account([name, type, customernum, i % 5 === 0 ? 'CHF' : 'EUR', c, creator, creator, when, when]);
    address([a, c, 0, 1, creator, when, when]);
  }
}

/**
 * The core of every seed, and its bulk path: accounts, each with exactly one
 * main contact and one default address. One prepared statement per family,
 * rows as positional arrays, a handful of random draws per row; the caller's
 * transaction (seedInstance) wraps it all.
 */
import {
  CITIES, COMPANY_FORMS, COMPANY_STEMS, CURRENCIES, DEPARTMENTS, DESCRIPTIONS, FIRST_NAMES, LAST_NAMES, POSITIONS, STREETS, type City,
} from './names.js';
import { weighted, type Random } from '../../util/random.js';
import { DAY, inserter, type Party, type Tenant } from './tenant.js';

/** Account types by weight: PROSPECT, CUSTOMER, SUPPLIER, CUSTOMERANDSUPPLIER, COMPETITOR, EMPLOYEE. */
const TYPE_WEIGHTS = [20, 45, 12, 6, 5, 12];
const CUSTOMER_TYPES = new Set([1, 3, 5]);
const SUPPLIER_TYPES = new Set([2, 3]);

const CONTACT_COLUMNS = [
  'type', 'lastname', 'firstname', 'address', 'postalcode', 'city', 'region', 'country', 'phone', 'email', 'website',
  'description', 'assigneduser', 'creator', 'creationdate', 'lastmodified',
];
const ACCOUNT_COLUMNS = [
  'type', 'lastname', 'firstname', 'customernum', 'suppliernum', 'taxid', 'currency', 'contact', 'visibility', 'locked',
  'excludetax', 'description', 'assigneduser', 'creator', 'creationdate', 'lastmodified',
];
const ADDRESS_COLUMNS = ['account', 'contact', 'type', 'default', 'creator', 'creationdate', 'lastmodified'];

/** Lower-case ASCII letters and digits only: "Müller & Söhne" → "mullersohne". */
export function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ø/g, 'o')
    .replace(/ł/g, 'l')
    .replace(/[^a-z0-9]+/g, '');
}

const slugs = new Map<string, string>();
function cachedSlug(text: string): string {
  let s = slugs.get(text);
  if (s === undefined) {
    s = slug(text) || 'firma';
    slugs.set(text, s);
  }
  return s;
}

/** A postal code from a pattern where each # is a random digit. */
function postal(random: Random, pattern: string): string {
  let out = '';
  for (const ch of pattern) out += ch === '#' ? String(random.int(0, 9)) : ch;
  return out;
}

function street(random: Random): string {
  const line = `${random.pick(STREETS)} ${random.int(1, 180)}`;
  return random.chance(0.1) ? `${line}\n${random.pick(['Hinterhaus', '2. OG', 'c/o Empfang', 'Gebäude B, Tor 3'])}` : line;
}

function currencyFor(random: Random, city: City): string {
  if (CURRENCIES.includes(city.currency) && random.chance(0.85)) return city.currency;
  return random.chance(0.8) ? 'EUR' : random.pick(CURRENCIES);
}

interface Who {
  readonly type: number;
  readonly person: boolean;
  readonly first: string;
  readonly last: string;
  readonly city: City;
  readonly email: string;
  readonly website: string;
}

/** Draws the account type and the name, city and addresses of account number `n`. */
function drawWho(random: Random, n: number): Who {
  const type = weighted(random, TYPE_WEIGHTS);
  const person = type === 5 || (type === 1 && random.chance(0.25)) || (type === 0 && random.chance(0.15));
  const city = random.pick(CITIES);
  const first = person ? random.pick(FIRST_NAMES) : '';
  const last = person ? random.pick(LAST_NAMES) : `${random.pick(COMPANY_STEMS)} ${random.pick(COMPANY_FORMS[city.country] ?? COMPANY_FORMS['*'] ?? [])}`;
  const email = person ? `${cachedSlug(first)}.${cachedSlug(last)}.${n}@mail.example` : `info@${cachedSlug(last)}-${n}.example`;
  const website = person ? '' : `https://www.${cachedSlug(last)}-${n}.example/`;
  return { type, person, first, last, city, email, website };
}

/**
 * Seeds `count` accounts with their contacts and addresses, created in ID
 * order over the last three years. Returns the parties when `keep` is set
 * (tenant-sized seeds), an empty list otherwise.
 */
export function seedParties(t: Tenant, count: number, keep: boolean): Party[] {
  const { random, now } = t;
  const contact = inserter(t, 'contacts', CONTACT_COLUMNS);
  const account = inserter(t, 'accounts', ACCOUNT_COLUMNS);
  const address = inserter(t, 'addresses', ADDRESS_COLUMNS);
  const users = t.users.length > 0 ? t.users : [null];
  const start = now - 3 * 365 * DAY;
  const step = (now - DAY - start) / Math.max(count, 1);
  const parties: Party[] = [];
  for (let i = 0; i < count; i++) {
    const n = i + 1;
    const { type, person, first, last, city, email, website } = drawWho(random, n);
    const created = Math.floor(start + i * step) + random.int(0, 3600);
    const modified = random.chance(0.6) ? created : random.int(created, now);
    const creator = random.pick(users);
    const assignee = random.chance(0.7) ? random.pick(users) : null;
    const description = random.pick(DESCRIPTIONS);
    const addr = street(random);
    const code = postal(random, city.postal);
    const phone = `${city.phone} ${random.int(100000, 9999999)}`;
    const c = contact([
      person ? 1 : 0, last, first, addr, code, city.name, city.region, city.country, phone, email, website,
      description, assignee, creator, created, modified,
    ]);
    const customernum = CUSTOMER_TYPES.has(type) ? `${type === 5 ? 'E' : 'K'}${100000 + n}` : '';
    const suppliernum = SUPPLIER_TYPES.has(type) ? `L${200000 + n}` : '';
    const taxid = !person && random.chance(0.6) ? `${city.country}${random.int(100000000, 999999999)}` : '';
    const currency = currencyFor(random, city);
    const a = account([
      type, last, first, customernum, suppliernum, taxid, currency, c, random.chance(0.03) ? 1 : 0, random.chance(0.02) ? 1 : 0,
      city.country === 'CH' || city.country === 'US' ? 1 : 0, description, assignee, creator, created, modified,
    ]);
    address([a, c, 0, 1, creator, created, modified]);
    if (keep) parties.push({ account: a, contact: c, type, person, currency, name: person ? `${first} ${last}` : last, address: addr, postalcode: code, city });
  }
  return parties;
}

/**
 * Tenant-sized seeds only: a contact person at about a third of the company
 * accounts (a PERSON contact with company, position and department), linked
 * as the account's billing address.
 */
export function seedContactPersons(t: Tenant): number {
  const { random } = t;
  const contact = inserter(t, 'contacts', [
    'type', 'firstname', 'lastname', 'title', 'company', 'position', 'department', 'address', 'postalcode', 'city',
    'country', 'phone', 'cell', 'email', 'birthdate', 'creator', 'creationdate', 'lastmodified',
  ]);
  const address = inserter(t, 'addresses', ADDRESS_COLUMNS);
  let made = 0;
  for (const p of t.parties) {
    if (p.person || p.type > 3 || !random.chance(0.35)) continue;
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const created = t.now - random.int(10, 600) * DAY;
    const birthdate = random.chance(0.3) ? -DAY * 365 * 10 + random.int(0, 40 * 365) * DAY : null;
    const creator = random.pick(t.users);
    const c = contact([
      1, first, last, random.pick(['', 'Dr.', 'Prof.', 'Mag.']), p.name, random.pick(POSITIONS), random.pick(DEPARTMENTS),
      p.address, p.postalcode, p.city.name, p.city.country, `${p.city.phone} ${random.int(100000, 999999)}`,
      random.chance(0.5) ? `+49 17${random.int(0, 9)} ${random.int(1000000, 9999999)}` : '',
      `${slug(first)}.${slug(last)}@${slug(p.name) || 'firma'}.example`, birthdate, creator, created, created,
    ]);
    address([p.account, c, 1, 1, creator, created, created]);
    made++;
  }
  return made;
}

/**
 * What the business seeders share: the database and instance, one seeded
 * random stream, the clock, the seeded users and the accounts made so far.
 */
import type { Db } from '../db.js';
import { prepareInsert } from '../data/store.js';
import type { City } from './names.js';
import type { Random } from '../../util/random.js';

/** An account as the later seeders need it (kept only for tenant-sized seeds). */
export interface Party {
  readonly account: number;
  readonly contact: number;
  readonly type: number;
  /** A private person (PERSON contact) rather than a company. */
  readonly person: boolean;
  readonly currency: string;
  /** The account's display name (company, or "first last"). */
  readonly name: string;
  readonly address: string;
  readonly postalcode: string;
  readonly city: City;
}

export interface Tenant {
  readonly db: Db;
  readonly instance: string;
  readonly random: Random;
  /** Seconds since the epoch; every seeded date is relative to it. */
  readonly now: number;
  /** Seeded user IDs (creators and assignees), the first one being the admin. */
  readonly users: readonly number[];
  readonly parties: readonly Party[];
}

export const DAY = 86400;

/** A prepared insert for `columns` of a family (thin alias, so seeders read alike). */
export function inserter(t: Tenant, family: string, columns: readonly string[]): (values: readonly unknown[]) => number {
  return prepareInsert(t.db, t.instance, family, columns);
}

/** creationdate and lastmodified: created up to `maxAgeDays` ago, modified later but not after now. */
export function stamps(t: Tenant, maxAgeDays = 720): [number, number] {
  const created = t.now - t.random.int(DAY, maxAgeDays * DAY);
  const modified = t.random.chance(0.5) ? created : t.random.int(created, t.now);
  return [created, modified];
}

/** A random seeded user ID. */
export function someUser(t: Tenant): number | null {
  return t.users.length === 0 ? null : t.random.pick(t.users);
}

/** Accounts of the given types (all accounts when none match). */
export function partiesOf(t: Tenant, types: readonly number[]): readonly Party[] {
  const found = t.parties.filter((p) => types.includes(p.type));
  return found.length > 0 ? found : t.parties;
}

/** A document number such as `P-00042`. */
export function docnum(prefix: string, n: number, width = 5): string {
  return `${prefix}-${String(n).padStart(width, '0')}`;
}

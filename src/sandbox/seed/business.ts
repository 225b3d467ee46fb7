/**
 * The business records of a seeded tenant, deterministic for the same
 * `accounts` and `now` (seeded random streams, dates relative to `now`).
 *
 * Sizes: every seed makes `accounts` accounts, each with exactly one main
 * contact and one default address (the bulk path, see parties.ts). Up to
 * TENANT_MAX_ACCOUNTS accounts, the seed is a full demo tenant: contact
 * persons with billing addresses, items, storages, stock, price lists,
 * projects, tasks, tickets, action steps, appointments, campaigns,
 * opportunities, contracts, transactions, payments, notes, records and
 * comments, sized in proportion to the accounts. Above it (benchmarks), only
 * the three core families are seeded.
 */
import type { Db } from '../db.js';
import { seedItems, seedPrices, seedStock } from './catalog.js';
import type { Identities } from './identities.js';
import { seedContactPersons, seedParties } from './parties.js';
import { createRandom } from '../../util/random.js';
import { seedCampaigns, seedContracts, seedTransactions } from './sales.js';
import type { Tenant } from './tenant.js';
import { seedActionsteps, seedAppointments, seedNotes, seedWork } from './work.js';

export interface BusinessSeedOptions {
  /** Number of accounts (each with a contact and an address). */
  readonly accounts: number;
  /** Seconds since the epoch used for dates. */
  readonly now: number;
}

/** Largest seed that still gets the full demo tenant; larger seeds get accounts, contacts and addresses only. */
export const TENANT_MAX_ACCOUNTS = 1000;

/** Random stream seeds: one for the core families, one for the rest, so either can change alone. */
const CORE_SEED = 0x5eed_0001;
const TENANT_SEED = 0x5eed_0002;

/** Seeds the business records of an instance (inside the caller's transaction). */
export function seedBusinessData(db: Db, instance: string, ids: Identities, opts: BusinessSeedOptions): void {
  const accounts = Math.max(0, Math.floor(opts.accounts));
  const users = ids.users.map((u) => u.id);
  const full = accounts > 0 && accounts <= TENANT_MAX_ACCOUNTS;
  const core: Tenant = { db, instance, random: createRandom(CORE_SEED), now: opts.now, users, parties: [] };
  const parties = seedParties(core, accounts, full);
  if (!full) return;
  seedTenant({ ...core, random: createRandom(TENANT_SEED), parties }, accounts);
}

/** Everything beyond the core families, sized from the number of accounts. */
function seedTenant(t: Tenant, accounts: number): void {
  const size = (per: number, min: number): number => Math.max(min, Math.ceil(accounts / per));
  seedContactPersons(t);
  const items = seedItems(t);
  seedStock(t, items);
  seedPrices(t, items);
  const work = seedWork(t, size(4, 4));
  seedActionsteps(t, work, size(2, 6));
  seedAppointments(t, size(3, 4));
  seedCampaigns(t, size(5, 3));
  seedContracts(t, items, size(10, 2));
  seedTransactions(t, items, size(1, 6));
  seedNotes(t, work, size(6, 3));
}

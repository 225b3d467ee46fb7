/**
 * Seeds a new instance: identities first (users, groups, permissions,
 * applications), then the business records, all in one transaction.
 */
import type { Db } from '../db.js';
import { seedBusinessData } from './business.js';
import { seedIdentities, type Identities } from './identities.js';

export interface SeedOptions {
  /** Number of accounts to create (default: the demo tenant's size). */
  readonly accounts?: number;
  /** Seconds since the epoch for the seeded dates. */
  readonly now: number;
}

/** What a seed returns: the clear credentials, which the database holds only hashed. */
export type SeedResult = Identities;

export const DEMO_ACCOUNTS = 60;

export function seedInstance(db: Db, instance: string, opts: SeedOptions): SeedResult {
  return db.transaction(() => {
    const ids = seedIdentities(db, instance);
    seedBusinessData(db, instance, ids, { accounts: opts.accounts ?? DEMO_ACCOUNTS, now: opts.now });
    return ids;
  })();
}

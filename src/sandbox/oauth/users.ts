/**
 * The users the OAuth interface deals with: only an active, unexpired user
 * may sign in, consent, exchange a code, refresh or be introspected.
 */
import { nowSeconds, type SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { table } from '../schema.js';

/** A user who may still use the service. */
export interface ActiveUser {
  readonly id: number;
  readonly name: string;
  readonly email: string;
}

/** The user of this ID when active and unexpired; undefined otherwise (or for null). */
export function activeUser(ctx: SandboxContext, user: number | null): ActiveUser | undefined {
  if (user === null) return undefined;
  const row = prepareCached(ctx.db, `SELECT "ID" AS id, name, email, activity, expdate FROM ${table(ctx.instance, 'users')} WHERE "ID" = ?`).get(user) as
    | (ActiveUser & { activity: number; expdate: number | null })
    | undefined;
  if (!row || row.activity !== 0 || (row.expdate !== null && row.expdate <= nowSeconds(ctx))) return undefined;
  return { id: row.id, name: row.name, email: row.email };
}

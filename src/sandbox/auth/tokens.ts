/**
 * Bearer tokens: 40 hex characters, one per (user, application, identifier),
 * valid until their expiry or logout. Stored in the instance's `_tokens` table.
 */
import { randomBytes } from 'node:crypto';
import { nowSeconds, type SandboxContext } from '../context.js';
import { prepareCached } from '../data/query/statements.js';
import { table } from '../schema.js';

export interface TokenRow {
  readonly token: string;
  readonly user: number;
  readonly application: number | null;
  readonly identifier: string;
  readonly expdate: number | null;
}

/** Default lifetime of a login token: 100 days. */
export const DEFAULT_TOKEN_DAYS = 100;

/** Issues a token, replacing the one the same user and application had for this identifier. */
export function issueToken(
  ctx: SandboxContext,
  input: { user: number; application: number | null; identifier: string; expdate?: number | null },
): TokenRow {
  const now = nowSeconds(ctx);
  const row: TokenRow = {
    token: randomBytes(20).toString('hex'),
    user: input.user,
    application: input.application,
    identifier: input.identifier,
    expdate: input.expdate === undefined ? now + DEFAULT_TOKEN_DAYS * 86400 : input.expdate,
  };
  const t = table(ctx.instance, '_tokens');
  ctx.db.transaction(() => {
    ctx.db.prepare(`DELETE FROM ${t} WHERE user = ? AND application IS ? AND identifier = ?`).run(row.user, row.application, row.identifier);
    ctx.db
      .prepare(`INSERT INTO ${t} (token, user, application, identifier, expdate, created) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(row.token, row.user, row.application, row.identifier, row.expdate, now);
  })();
  return row;
}

export function findToken(ctx: SandboxContext, token: string): TokenRow | undefined {
  return prepareCached(ctx.db, `SELECT token, user, application, identifier, expdate FROM ${table(ctx.instance, '_tokens')} WHERE token = ?`).get(token) as
    | TokenRow
    | undefined;
}

/** Removes a token; true when there was one. */
export function revokeToken(ctx: SandboxContext, token: string): boolean {
  return ctx.db.prepare(`DELETE FROM ${table(ctx.instance, '_tokens')} WHERE token = ?`).run(token).changes > 0;
}

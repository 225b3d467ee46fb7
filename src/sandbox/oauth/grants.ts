/**
 * Grants: what one authorization (a code exchanged, or a password grant)
 * gives a client. A grant holds one access token, in `_tokens` (identifier
 * `oauth:<grant>`, application = the client's, expiring after the access TTL),
 * so the data and authentication interfaces take it like any application-
 * specific token; and one refresh token, in `_oauthrefresh`, for 100 days.
 * A refresh is single-use: it replaces both tokens of the grant.
 */
import { randomBytes } from 'node:crypto';
import { nowSeconds, type SandboxContext } from '../context.js';
import { issueToken } from '../auth/tokens.js';
import { prepareCached } from '../data/query/statements.js';
import { table } from '../schema.js';

/** Lifetime of an access token unless the sandbox is told otherwise (the service's: one hour). */
export const DEFAULT_ACCESS_TTL_SECONDS = 3600;
/** Lifetime of a refresh token (the service's: 100 days). */
export const REFRESH_TTL_SECONDS = 100 * 86_400;

/** The `/token` answer (RFC 6749 section 5.1, with the service's refresh_token_expires_in). */
export interface TokenPair {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly refresh_token_expires_in: number;
}

/** A refresh token as stored. */
export interface RefreshRow {
  readonly token: string;
  readonly grantid: string;
  readonly application: number;
  readonly user: number;
  /** The access token issued beside it. */
  readonly access: string;
  readonly expdate: number;
}

/** The `_tokens` identifier of a grant's access token. */
export const grantIdentifier = (grantid: string): string => `oauth:${grantid}`;

/** Whether a `_tokens` identifier belongs to an OAuth grant. */
export const isGrantIdentifier = (identifier: string): boolean => identifier.startsWith('oauth:');

const accessTtl = (ctx: SandboxContext): number => ctx.oauthAccessTtlSeconds ?? DEFAULT_ACCESS_TTL_SECONDS;

/** Issues the grant's tokens, replacing the ones it had (its access token, through issueToken, and its refresh token). */
function issuePair(ctx: SandboxContext, grantid: string, application: number, user: number): TokenPair {
  const now = nowSeconds(ctx);
  const ttl = accessTtl(ctx);
  return ctx.db.transaction((): TokenPair => {
    const access = issueToken(ctx, { user, application, identifier: grantIdentifier(grantid), expdate: now + ttl });
    const refresh = randomBytes(20).toString('hex');
    const t = table(ctx.instance, '_oauthrefresh');
    prepareCached(ctx.db, `DELETE FROM ${t} WHERE grantid = ?`).run(grantid);
    prepareCached(ctx.db, `INSERT INTO ${t} (token, grantid, application, user, access, expdate, created) VALUES (?, ?, ?, ?, ?, ?, ?)`).run(
      refresh,
      grantid,
      application,
      user,
      access.token,
      now + REFRESH_TTL_SECONDS,
      now,
    );
    return { access_token: access.token, token_type: 'Bearer', expires_in: ttl, refresh_token: refresh, refresh_token_expires_in: REFRESH_TTL_SECONDS };
  })();
}

/** A new grant for a user of a client application; returns its ID and first tokens. */
export function newGrant(ctx: SandboxContext, application: number, user: number): { grantid: string; tokens: TokenPair } {
  const grantid = randomBytes(12).toString('hex');
  return { grantid, tokens: issuePair(ctx, grantid, application, user) };
}

/** The refresh token's row, if it exists and has not expired. */
export function findRefresh(ctx: SandboxContext, token: string): RefreshRow | undefined {
  return prepareCached(
    ctx.db,
    `SELECT token, grantid, application, user, access, expdate FROM ${table(ctx.instance, '_oauthrefresh')} WHERE token = ? AND expdate > ?`,
  ).get(token, nowSeconds(ctx)) as RefreshRow | undefined;
}

/** Uses a refresh token: the grant gets new tokens, and the old refresh and access tokens stop working. */
export function rotateGrant(ctx: SandboxContext, row: RefreshRow): TokenPair {
  return ctx.db.transaction((): TokenPair => {
    revokeRefresh(ctx, row);
    return issuePair(ctx, row.grantid, row.application, row.user);
  })();
}

/** Revokes a refresh token and the access token issued beside it. */
export function revokeRefresh(ctx: SandboxContext, row: RefreshRow): void {
  prepareCached(ctx.db, `DELETE FROM ${table(ctx.instance, '_oauthrefresh')} WHERE token = ?`).run(row.token);
  prepareCached(ctx.db, `DELETE FROM ${table(ctx.instance, '_tokens')} WHERE token = ?`).run(row.access);
}

/** Revokes every token of a grant. */
export function revokeGrant(ctx: SandboxContext, grantid: string): void {
  prepareCached(ctx.db, `DELETE FROM ${table(ctx.instance, '_oauthrefresh')} WHERE grantid = ?`).run(grantid);
  prepareCached(ctx.db, `DELETE FROM ${table(ctx.instance, '_tokens')} WHERE identifier = ?`).run(grantIdentifier(grantid));
}

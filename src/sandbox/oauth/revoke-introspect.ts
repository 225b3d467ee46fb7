/**
 * `POST /revoke` (RFC 7009) and `POST /introspect` (RFC 7662): an
 * authenticated client revokes or inspects one of its own tokens, access or
 * refresh. Revoking a refresh token revokes its access token too; an unknown
 * token, or another client's, is left alone and answered like a revoked one
 * (200 to revoke, `{active: false}` to introspect).
 */
import { findToken } from '../auth/tokens.js';
import { sessionFromToken } from '../auth/session.js';
import type { RequestInfo, SandboxContext } from '../context.js';
import { empty, type Reply } from '../http/respond.js';
import { table } from '../schema.js';
import { authenticateClient, type OAuthClient } from './clients.js';
import { findRefresh, isGrantIdentifier, revokeRefresh, type RefreshRow } from './grants.js';
import { bodyParams } from './params.js';
import { NO_STORE, noStoreJson, oauthError } from './replies.js';
import { activeUser } from './users.js';

const FIELDS = ['token', 'token_type_hint', 'client_id', 'client_secret'];

/** The client and the token it names; 400 invalid_request without a token. */
function clientAndToken(ctx: SandboxContext, info: RequestInfo): { client: OAuthClient; token: string } {
  const params = bodyParams(info.body, FIELDS);
  const problem = params.problem();
  if (problem) throw oauthError(ctx, 'invalid_request', problem.message);
  const client = authenticateClient(ctx, info.headers, params);
  const token = params.get('token');
  if (token === undefined) throw oauthError(ctx, 'invalid_request', "'token' is required: the access or refresh token");
  return { client, token };
}

/** The client's refresh token of this value, if any. */
function ownRefresh(ctx: SandboxContext, client: OAuthClient, token: string): RefreshRow | undefined {
  const row = findRefresh(ctx, token);
  return row?.application === client.id ? row : undefined;
}

/** Whether the token is an access token of one of the client's grants. */
function isOwnAccess(ctx: SandboxContext, client: OAuthClient, token: string): boolean {
  const row = findToken(ctx, token);
  return row !== undefined && row.application === client.id && isGrantIdentifier(row.identifier);
}

/** `POST /revoke`: 200 (empty) whether or not there was such a token. */
export function revoke(ctx: SandboxContext, info: RequestInfo): Reply {
  const { client, token } = clientAndToken(ctx, info);
  const refresh = ownRefresh(ctx, client, token);
  if (refresh) revokeRefresh(ctx, refresh);
  else if (isOwnAccess(ctx, client, token)) ctx.db.prepare(`DELETE FROM ${table(ctx.instance, '_tokens')} WHERE token = ?`).run(token);
  return empty(200, { ...NO_STORE });
}

/** `POST /introspect`: `{active, client_id, username, sub, exp}` for a live token of the client, else `{active: false}`. */
export function introspect(ctx: SandboxContext, info: RequestInfo): Reply {
  const { client, token } = clientAndToken(ctx, info);
  const inactive = noStoreJson({ active: false });
  const describe = (user: number, exp: number | null): Reply => {
    const row = activeUser(ctx, user);
    return row ? noStoreJson({ active: true, client_id: client.identifier, username: row.name, sub: String(user), exp }) : inactive;
  };
  if (isOwnAccess(ctx, client, token)) {
    const session = sessionFromToken(ctx, token);
    return session ? describe(session.user, session.expdate) : inactive;
  }
  const refresh = ownRefresh(ctx, client, token);
  return refresh ? describe(refresh.user, refresh.expdate) : inactive;
}

/**
 * `POST /token` (RFC 6749 sections 4.1.3, 6, and the service's password
 * grant): an authenticated client exchanges a code (with its PKCE verifier,
 * when the code has a challenge), a refresh token, or a user's credentials
 * for a new access and refresh token. Codes and refresh tokens work once;
 * a reused code revokes the grant it started.
 */
import { checkUser, commitSignIn, CredentialError } from '../auth/credentials.js';
import { nowSeconds, type RequestInfo, type SandboxContext } from '../context.js';
import type { Reply } from '../http/respond.js';
import { authenticateClient, type OAuthClient } from './clients.js';
import { findCode, markCodeUsed, recordGrant, verifierMatches } from './codes.js';
import { findRefresh, newGrant, revokeGrant, rotateGrant, type TokenPair } from './grants.js';
import { bodyParams, type Params } from './params.js';
import { noStoreJson, oauthError } from './replies.js';
import { activeUser } from './users.js';

const FIELDS = ['grant_type', 'client_id', 'client_secret', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'username', 'password', 'otp', 'scope'];

const TOKEN = /^[0-9a-f]{40}$/;

function required(ctx: SandboxContext, params: Params, name: string): string {
  const value = params.get(name);
  if (value === undefined) throw oauthError(ctx, 'invalid_request', `'${name}' is required for this grant_type`);
  return value;
}

function authorizationCode(ctx: SandboxContext, client: OAuthClient, params: Params): TokenPair {
  const code = required(ctx, params, 'code');
  const redirectUri = required(ctx, params, 'redirect_uri');
  const verifier = params.get('code_verifier');
  const row = TOKEN.test(code) ? findCode(ctx, code) : undefined;
  if (!row || row.application !== client.id) throw oauthError(ctx, 'invalid_grant', 'the authorization code is invalid, or was issued to another client');
  if (row.used !== null) {
    if (row.grantid) revokeGrant(ctx, row.grantid);
    markCodeUsed(ctx, code);
    throw oauthError(ctx, 'invalid_grant', 'the authorization code was used already; the tokens issued for it are revoked');
  }
  markCodeUsed(ctx, code);
  if (row.expires <= nowSeconds(ctx)) throw oauthError(ctx, 'invalid_grant', 'the authorization code has expired; authorize again');
  if (redirectUri !== row.redirecturi) throw oauthError(ctx, 'invalid_grant', "'redirect_uri' differs from the one the code was issued for");
  if (row.challenge !== null && verifier === undefined) throw oauthError(ctx, 'invalid_grant', "the code has a PKCE challenge: send its 'code_verifier'");
  if (row.challenge !== null && !verifierMatches(row.challenge, verifier ?? '')) {
    throw oauthError(ctx, 'invalid_grant', "'code_verifier' does not match the code's challenge");
  }
  if (row.challenge === null && verifier !== undefined) throw oauthError(ctx, 'invalid_grant', "the code has no PKCE challenge, so a 'code_verifier' is not accepted");
  if (!activeUser(ctx, row.user)) throw oauthError(ctx, 'invalid_grant', 'the user of the authorization code is no longer active');
  const { grantid, tokens } = newGrant(ctx, client.id, row.user);
  recordGrant(ctx, code, grantid);
  return tokens;
}

function refreshToken(ctx: SandboxContext, client: OAuthClient, params: Params): TokenPair {
  const token = required(ctx, params, 'refresh_token');
  const row = TOKEN.test(token) ? findRefresh(ctx, token) : undefined;
  if (!row || row.application !== client.id) throw oauthError(ctx, 'invalid_grant', 'the refresh token is invalid, expired or used already');
  if (!activeUser(ctx, row.user)) throw oauthError(ctx, 'invalid_grant', 'the user of the refresh token is no longer active');
  return rotateGrant(ctx, row);
}

function password(ctx: SandboxContext, client: OAuthClient, params: Params): TokenPair {
  const name = required(ctx, params, 'username');
  const secret = required(ctx, params, 'password');
  try {
    const checked = checkUser(ctx, { name, password: secret, otp: params.get('otp') }, nowSeconds(ctx));
    commitSignIn(ctx, checked);
    return newGrant(ctx, client.id, checked.account.ID).tokens;
  } catch (err) {
    if (err instanceof CredentialError) throw oauthError(ctx, 'invalid_grant', err.message.replace(/^Unauthorized: /, ''));
    throw err;
  }
}

const GRANTS: ReadonlyMap<string, (ctx: SandboxContext, client: OAuthClient, params: Params) => TokenPair> = new Map([
  ['authorization_code', authorizationCode],
  ['refresh_token', refreshToken],
  ['password', password],
]);

/** `POST /token`: 200 with a TokenPair, or an RFC 6749 error (400, or 401 invalid_client). */
export function token(ctx: SandboxContext, info: RequestInfo): Reply {
  const params = bodyParams(info.body, FIELDS);
  const problem = params.problem();
  if (problem) throw oauthError(ctx, 'invalid_request', problem.message);
  const client = authenticateClient(ctx, info.headers, params);
  const type = params.get('grant_type');
  if (type === undefined) throw oauthError(ctx, 'invalid_request', "'grant_type' is required: authorization_code, refresh_token or password");
  const grant = GRANTS.get(type);
  if (!grant) throw oauthError(ctx, 'unsupported_grant_type', 'grant_type must be authorization_code, refresh_token or password');
  return noStoreJson(grant(ctx, client, params));
}

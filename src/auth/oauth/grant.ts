/**
 * What `svc login --web` keeps in the credential store, under the same
 * account as a login's token (`<target>/token`): the OAuth 2.0 access token,
 * its single-use refresh token, their expiries and the client they belong to,
 * as one JSON value, so the pair is always written (and read) together.
 *
 * A stored value that does not start with `{` (blanks aside) is a plain
 * token from `svc login` (those are 40 hex characters). One that does is a
 * grant, or a damaged one (edited by hand, cut short, written by something
 * else): that is a DamagedGrantError, never taken for a plain token, which
 * would send the whole value, refresh token included, as a bearer token and
 * print it with `svc auth token`.
 */
import { AuthError, SvcError } from '../../errors.js';

export interface OAuthGrant {
  readonly type: 'oauth2';
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Unix seconds when the access token expires. */
  readonly expiresAt: number;
  /** Unix seconds when the refresh token expires, when the service said. */
  readonly refreshExpiresAt?: number | undefined;
  /** The OAuth client (application identifier) the tokens were issued to. */
  readonly clientId: string;
}

/** A token svc can send in an Authorization header: visible ASCII, no blanks. */
const TOKEN = /^[\x21-\x7e]{1,4096}$/;
/** An application identifier (the service's client_id pattern). */
const CLIENT_ID = /^[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,198}[a-zA-Z0-9])?$/;
/** Unix seconds svc takes as an expiry: from 1970 to the year 10000. */
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 253_402_300_800;

/** A stored sign-in that is not a grant svc wrote: exit 4, saying how to get rid of it. */
export class DamagedGrantError extends AuthError {
  constructor(why: string) {
    super(`the stored browser sign-in is damaged (${why}); sign in again with 'svc login --web', or forget it with 'svc logout'`);
    this.name = 'DamagedGrantError';
  }
}

/** The grant a stored value holds; undefined for a plain token; DamagedGrantError for anything else. */
export function parseGrant(stored: unknown): OAuthGrant | undefined {
  if (typeof stored !== 'string') throw new DamagedGrantError(`the store holds ${stored === null ? 'null' : typeof stored}, not text`);
  if (!stored.trimStart().startsWith('{')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(stored);
  } catch {
    throw new DamagedGrantError('it is not valid JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new DamagedGrantError('it is not a JSON object');
  const o = v as Record<string, unknown>;
  const own = (k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);
  if (own('type') !== 'oauth2') throw new DamagedGrantError("its 'type' is not 'oauth2'");
  const accessToken = own('accessToken');
  const refreshToken = own('refreshToken');
  const expiresAt = own('expiresAt');
  const refreshExpiresAt = own('refreshExpiresAt');
  const clientId = own('clientId');
  if (typeof accessToken !== 'string' || !TOKEN.test(accessToken)) throw new DamagedGrantError("its 'accessToken' is not a token");
  if (typeof refreshToken !== 'string' || !TOKEN.test(refreshToken)) throw new DamagedGrantError("its 'refreshToken' is not a token");
  if (!isTime(expiresAt)) throw new DamagedGrantError("its 'expiresAt' is not a time in Unix seconds");
  if (refreshExpiresAt !== undefined && !isTime(refreshExpiresAt)) throw new DamagedGrantError("its 'refreshExpiresAt' is not a time in Unix seconds");
  if (typeof clientId !== 'string' || !CLIENT_ID.test(clientId)) throw new DamagedGrantError("its 'clientId' is not an application identifier");
  return { type: 'oauth2', accessToken, refreshToken, expiresAt, ...(refreshExpiresAt !== undefined ? { refreshExpiresAt } : {}), clientId };
}

/** The stored form of a grant. */
export function serializeGrant(grant: OAuthGrant): string {
  return JSON.stringify(grant);
}

/** A token endpoint's answer svc cannot keep: exit 1; errors.ts says which request it answered. */
export class TokenAnswerError extends SvcError {
  constructor(readonly why: string) {
    super(`the service's answer is not valid OAuth 2.0 (${why})`);
    this.name = 'TokenAnswerError';
  }
}

/** What the token endpoint answered, as oauth4webapi hands it over (token_type lower-cased). */
export interface TokenAnswer {
  readonly access_token: string;
  readonly token_type?: string | undefined;
  readonly refresh_token?: string | undefined;
  readonly expires_in?: number | undefined;
  readonly refresh_token_expires_in?: unknown;
}

/**
 * A grant from a token endpoint's answer, issued at `nowMs`; TokenAnswerError
 * for an answer whose tokens svc could not send or keep (not Bearer, blanks
 * or control characters, no refresh token). A refresh answer without a
 * refresh token keeps the one of `previous` (RFC 6749 section 6: the server
 * may leave the old one in force).
 */
export function grantFrom(answer: TokenAnswer, clientId: string, nowMs: number, previous?: OAuthGrant): OAuthGrant {
  if (typeof answer.token_type !== 'string' || answer.token_type.toLowerCase() !== 'bearer') {
    throw new TokenAnswerError(`token_type must be Bearer, not '${String(answer.token_type).replace(/[^\x21-\x7e]/g, '?').slice(0, 40)}'`);
  }
  if (!TOKEN.test(answer.access_token)) throw new TokenAnswerError('its access_token is not 1 to 4096 visible ASCII characters');
  const kept = answer.refresh_token === undefined ? previous : undefined;
  const refreshToken = answer.refresh_token ?? kept?.refreshToken;
  if (refreshToken === undefined) throw new TokenAnswerError('it has no refresh_token, so svc could not renew the sign-in');
  if (!TOKEN.test(refreshToken)) throw new TokenAnswerError('its refresh_token is not 1 to 4096 visible ASCII characters');
  const now = Math.floor(nowMs / 1000);
  // Lifetimes beyond ten years are taken as ten years: expiries stay plain, finite numbers.
  const lifetime = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(v, 10 * 365 * 86_400) : undefined);
  const refreshIn = lifetime(answer.refresh_token_expires_in);
  const refreshExpiresAt = kept ? kept.refreshExpiresAt : refreshIn !== undefined ? now + refreshIn : undefined;
  return {
    type: 'oauth2',
    accessToken: answer.access_token,
    refreshToken,
    // Without expires_in, the service's documented lifetime: one hour.
    expiresAt: now + (lifetime(answer.expires_in) ?? 3600),
    ...(refreshExpiresAt !== undefined ? { refreshExpiresAt } : {}),
    clientId,
  };
}

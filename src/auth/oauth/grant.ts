/**
 * What `svc login --web` keeps in the credential store, under the same
 * account as a login's token (`<target>/token`): the OAuth 2.0 access token,
 * its single-use refresh token, their expiries and the client they belong to,
 * as one JSON value, so the pair is always written (and read) together. A
 * value that is not such JSON is a plain token from `svc login`.
 */

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

const TOKEN = /^[\x21-\x7e]{1,4096}$/;

/** The grant a stored value holds, or undefined for a plain token (or anything malformed). */
export function parseGrant(stored: string): OAuthGrant | undefined {
  if (!stored.startsWith('{')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const own = (k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);
  const [type, accessToken, refreshToken, expiresAt, refreshExpiresAt, clientId] = ['type', 'accessToken', 'refreshToken', 'expiresAt', 'refreshExpiresAt', 'clientId'].map(own);
  if (type !== 'oauth2' || typeof accessToken !== 'string' || typeof refreshToken !== 'string' || typeof clientId !== 'string') return undefined;
  if (!TOKEN.test(accessToken) || !TOKEN.test(refreshToken) || typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return undefined;
  return {
    type: 'oauth2',
    accessToken,
    refreshToken,
    expiresAt,
    ...(typeof refreshExpiresAt === 'number' && Number.isFinite(refreshExpiresAt) ? { refreshExpiresAt } : {}),
    clientId,
  };
}

/** The stored form of a grant. */
export function serializeGrant(grant: OAuthGrant): string {
  return JSON.stringify(grant);
}

/** A grant from a token endpoint's answer, issued at `nowMs`. */
export function grantFrom(answer: { access_token: string; refresh_token?: string | undefined; expires_in?: number | undefined; refresh_token_expires_in?: unknown }, clientId: string, nowMs: number): OAuthGrant {
  if (!answer.refresh_token) throw new Error('the token endpoint answered without a refresh_token');
  const now = Math.floor(nowMs / 1000);
  const refreshIn = typeof answer.refresh_token_expires_in === 'number' && Number.isFinite(answer.refresh_token_expires_in) ? answer.refresh_token_expires_in : undefined;
  return {
    type: 'oauth2',
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    // Without expires_in, the service's documented lifetime: one hour.
    expiresAt: now + (typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600),
    ...(refreshIn !== undefined ? { refreshExpiresAt: now + refreshIn } : {}),
    clientId,
  };
}

/** How `svc auth status` shows a valid token: the data below as JSON, labelled lines on a terminal. */
import type { ResolvedToken } from '../../../auth/chain.js';
import type { OAuthGrant } from '../../../auth/oauth/grant.js';
import type { Target } from '../../../cli/connection.js';
import type { ObjectView } from '../../../output/view.js';
import { expiryLabel } from '../../../util/expiry.js';
import { sourceLabel } from '../shared.js';

/** What `svc auth status -o json` prints. */
export interface AuthStatus {
  readonly profile: string | null;
  readonly instanceUrl: string;
  readonly source: string;
  readonly tokenFile?: string;
  readonly valid: boolean;
  readonly user: string | null;
  /** Unix seconds, when the login that stored the token reported it. */
  readonly expires: number | null;
  /** `token`: a login's application-specific token (or one given to svc); `oauth2`: a browser sign-in's tokens. */
  readonly credential: 'token' | 'oauth2';
  /** A browser sign-in's client, and when its current access token and its refresh token expire (Unix seconds). */
  readonly clientId?: string;
  readonly accessTokenExpires?: number;
  readonly refreshTokenExpires?: number | null;
}

/** The status of a token the service accepted; user and expiry only for a token a login stored. */
export function authStatusView(target: Target, token: ResolvedToken, nowMs: number, grant?: OAuthGrant): ObjectView {
  const { profile, instanceUrl } = target;
  const stored = token.source === 'keychain' || token.source === 'plain file';
  const value: AuthStatus = {
    profile: profile?.name ?? null,
    instanceUrl,
    source: token.source,
    ...(token.where ? { tokenFile: token.where } : {}),
    valid: true,
    user: stored ? (profile?.user ?? null) : null,
    expires: grant ? (grant.refreshExpiresAt ?? null) : stored ? (profile?.tokenExpires ?? null) : null,
    credential: grant ? 'oauth2' : 'token',
    ...(grant ? { clientId: grant.clientId, accessTokenExpires: grant.expiresAt, refreshTokenExpires: grant.refreshExpiresAt ?? null } : {}),
  };
  const details: [string, string][] = [];
  details.push(['profile', profile ? profile.name : 'none (--url or SVC_URL)'], ['instance', instanceUrl]);
  if (value.user) details.push(['user', value.user]);
  if (grant) {
    details.push(['signed in', `with a browser (OAuth 2.0, client ${grant.clientId})`], ['tokens from', sourceLabel(token)], ['access token', 'valid']);
    details.push(['access token expires', `${expiryLabel(grant.expiresAt, nowMs)} (renewed by itself)`]);
    details.push(['sign-in expires', grant.refreshExpiresAt === undefined ? 'unknown' : expiryLabel(grant.refreshExpiresAt, nowMs)]);
  } else {
    details.push(['token from', sourceLabel(token)], ['token', 'valid']);
    details.push(['expires', value.expires === null ? 'unknown' : expiryLabel(value.expires, nowMs)]);
  }
  return { kind: 'object', value, details };
}

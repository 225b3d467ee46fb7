/** How `svc auth status` shows a valid token: the data below as JSON, labelled lines on a terminal. */
import type { ResolvedToken } from '../../../auth/chain.js';
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
}

/** The status of a token the service accepted; user and expiry only for a token a login stored. */
export function authStatusView(target: Target, token: ResolvedToken, nowMs: number): ObjectView {
  const { profile, instanceUrl } = target;
  const stored = token.source === 'keychain' || token.source === 'plain file';
  const value: AuthStatus = {
    profile: profile?.name ?? null,
    instanceUrl,
    source: token.source,
    ...(token.where ? { tokenFile: token.where } : {}),
    valid: true,
    user: stored ? (profile?.user ?? null) : null,
    expires: stored ? (profile?.tokenExpires ?? null) : null,
  };
  const details: [string, string][] = [];
  details.push(['profile', profile ? profile.name : 'none (--url or SVC_URL)'], ['instance', instanceUrl]);
  if (value.user) details.push(['user', value.user]);
  details.push(['token from', sourceLabel(token)], ['token', 'valid']);
  details.push(['expires', value.expires === null ? 'unknown' : expiryLabel(value.expires, nowMs)]);
  return { kind: 'object', value, details };
}

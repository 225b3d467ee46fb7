/**
 * `svc auth status` (which instance, which credential won, whether the
 * service accepts it, when it expires) and `svc auth token` (the token, for
 * piping). Both exit 4 when there is no token; status also when it is refused.
 */
import { connectCmd } from '../legacy.js';
import type { Command } from 'commander';
import { AuthError } from '../../errors.js';
import type { ObjectView, TextView } from '../../output/view.js';
import { connect, type Connection } from '../connection.js';
import type { Deps } from '../deps.js';
import { invalidTokenError, loginCommand, sourceLabel, verifyToken } from './auth-common.js';
import { expiryLabel } from './profile-view.js';

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

/** Exit 4 with the way to sign in, and why the keychain was no help when it was not. */
function notSignedIn(conn: Connection): AuthError {
  const why = conn.keychainProblem ? ` (the keychain could not be read: ${conn.keychainProblem})` : '';
  return new AuthError(`not signed in to ${conn.target.label}${why}: run '${loginCommand(conn.target)}', or set SVC_TOKEN or SVC_TOKEN_FILE`);
}

/** Opens the connection and runs `body`, closing the client afterwards; no token is exit 4. */
async function withToken<T>(self: Command, deps: Deps, body: (conn: Connection, token: NonNullable<Connection['token']>) => Promise<T>): Promise<T> {
  const conn = await connectCmd(self, deps, { token: false });
  try {
    if (!conn.token) throw notSignedIn(conn);
    return await body(conn, conn.token);
  } finally {
    await conn.client.close();
  }
}

/** `svc auth status`. */
export async function authStatusView(self: Command, deps: Deps): Promise<ObjectView> {
  return withToken(self, deps, async (conn, token) => {
    if (!(await verifyToken(conn))) throw invalidTokenError(conn);
    const { profile, instanceUrl } = conn.target;
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
    details.push(['expires', value.expires === null ? 'unknown' : expiryLabel(value.expires, deps.now())]);
    return { kind: 'object', value, details };
  });
}

/** `svc auth token`: the token and a newline, nothing else. */
export async function authTokenView(self: Command, deps: Deps): Promise<TextView> {
  return withToken(self, deps, async (_conn, token) => ({ kind: 'text', text: `${token.token}\n` }));
}

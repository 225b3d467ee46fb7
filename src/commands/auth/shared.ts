/**
 * What the auth commands share: naming where a token came from, the way to
 * sign in for a target, asking the service whether it accepts the token, and
 * the connection that must carry one. No message here ever carries the token
 * itself.
 */
import type { ResolvedToken } from '../../auth/chain.js';
import type { Connection } from '../../cli/connection.js';
import type { Context } from '../../cli/context.js';
import { fixFor, loginCommand, sourceLabel } from '../../cli/token-advice.js';
import { AuthError } from '../../errors.js';
import { shown } from '../../util/shown.js';

export { loginCommand, sourceLabel };

/** Exit 4: the service refused the token (expired, revoked, or its user or application deactivated). */
export function invalidTokenError(conn: Connection): AuthError {
  const token = conn.token;
  if (!token) return new AuthError(`not signed in to ${shown(conn.target.label)}: run '${loginCommand(conn.target)}', or set SVC_TOKEN or SVC_TOKEN_FILE`);
  return new AuthError(
    `the token from ${sourceLabel(token)} is not valid for ${shown(conn.target.label)} (expired, revoked, or its user or application deactivated): ${fixFor(token, conn.target)}`,
  );
}

/** Asks `HEAD {auth}/` whether the service accepts the connection's token: 204 yes, 401 no. */
export async function verifyToken(conn: Connection): Promise<boolean> {
  const res = await conn.client.request({ method: 'HEAD', root: 'auth', path: '/', accept: [401] });
  await res.body.dump();
  return res.status !== 401;
}

/** Exit 4 with the way to sign in, and why the keychain was no help when it was not. */
function notSignedIn(conn: Connection): AuthError {
  const why = conn.keychainProblem ? ` (the keychain could not be read: ${conn.keychainProblem})` : '';
  return new AuthError(`not signed in to ${shown(conn.target.label)}${why}: run '${loginCommand(conn.target)}', or set SVC_TOKEN or SVC_TOKEN_FILE`);
}

/** The run's connection and its token; no token is exit 4 naming the login command for the target. */
export async function connectWithToken(ctx: Context): Promise<{ conn: Connection; token: ResolvedToken }> {
  const conn = await ctx.connect({ token: false });
  if (!conn.token) throw notSignedIn(conn);
  return { conn, token: conn.token };
}

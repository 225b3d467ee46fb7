/**
 * The authentication interface, `/<instance>/auth/v1/…`:
 *
 *   GET  /        session info of the bearer token (any token, app-specific or not)
 *   HEAD /        204 when the token is valid, 401 otherwise
 *   POST /login   issue a token (see login.ts)
 *   GET  /logout  205 when a valid token was invalidated, 204 when there was nothing to do
 *
 * Other paths are 404; another method on a known path is 405 with Allow.
 */
import type { RequestInfo, SandboxContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { empty, json, type Reply } from '../http/respond.js';
import { login } from './login.js';
import { bearerToken, requireSession, sessionFromToken } from './session.js';
import { toSessionInfo } from './session-info.js';
import { revokeToken } from './tokens.js';

type Handler = (ctx: SandboxContext, info: RequestInfo) => Reply;

function logout(ctx: SandboxContext, info: RequestInfo): Reply {
  const token = bearerToken(info.headers);
  if (!token) return empty(204);
  const valid = sessionFromToken(ctx, token) !== undefined;
  // An expired or orphaned token is dropped too, but there was nothing to invalidate.
  revokeToken(ctx, token);
  return empty(valid ? 205 : 204);
}

function sessionInfo(ctx: SandboxContext, info: RequestInfo): Reply {
  return json(toSessionInfo(ctx, requireSession(ctx, info.headers, { appSpecific: false })));
}

function verify(ctx: SandboxContext, info: RequestInfo): Reply {
  requireSession(ctx, info.headers, { appSpecific: false });
  return empty(204);
}

function loginRoute(ctx: SandboxContext, info: RequestInfo): Reply {
  const row = login(ctx, info.body);
  return json({ application: row.application, expdate: row.expdate, identifier: row.identifier, token: row.token, user: row.user });
}

/** Path after `/auth/v1/` → method → handler. */
const ROUTES: ReadonlyMap<string, ReadonlyMap<string, Handler>> = new Map([
  ['', new Map([['GET', sessionInfo], ['HEAD', verify]])],
  ['login', new Map([['POST', loginRoute]])],
  ['logout', new Map([['GET', logout]])],
]);

/** The authentication interface: `/<instance>/auth/v1/…`. */
export async function handleAuth(ctx: SandboxContext, info: RequestInfo): Promise<Reply> {
  const path = info.segments.join('/');
  const methods = info.segments.length <= 1 ? ROUTES.get(path) : undefined;
  if (!methods) throw notFound(`Not Found: the authentication interface has no /${path}`);
  const handler = methods.get(info.method);
  if (!handler) {
    const allowed = [...methods.keys()].join(', ');
    throw new HttpError(405, `Method Not Allowed: /${path} accepts ${allowed}`, { Allow: allowed });
  }
  return handler(ctx, info);
}

/**
 * The OAuth 2.0 interface, `/<instance>/oauth2/v1/…`:
 *
 *   GET, POST /authorize   sign-in, one-time code and consent pages (authorize.ts)
 *   POST /token            codes, refresh tokens and passwords for tokens (token.ts)
 *   POST /revoke           revoke an access or refresh token (revoke-introspect.ts)
 *   POST /introspect       what a token is, for its client (revoke-introspect.ts)
 *   GET  /userinfo         the user of a bearer token or session cookie (userinfo.ts)
 *
 * Other paths are 404; another method on a known path is 405 with Allow.
 */
import type { RequestInfo, SandboxContext } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import type { Reply } from '../http/respond.js';
import { excerpt } from '../limits.js';
import { authorizeGet, authorizePost } from './authorize.js';
import { introspect, revoke } from './revoke-introspect.js';
import { token } from './token.js';
import { userinfo } from './userinfo.js';

type Handler = (ctx: SandboxContext, info: RequestInfo) => Reply;

/** Path after `/oauth2/v1/` → method → handler. */
const ROUTES: ReadonlyMap<string, ReadonlyMap<string, Handler>> = new Map([
  ['authorize', new Map([['GET', authorizeGet], ['POST', authorizePost]])],
  ['token', new Map([['POST', token]])],
  ['revoke', new Map([['POST', revoke]])],
  ['introspect', new Map([['POST', introspect]])],
  ['userinfo', new Map([['GET', userinfo]])],
]);

/** The OAuth 2.0 interface: `/<instance>/oauth2/v1/…`. */
export async function handleOAuth(ctx: SandboxContext, info: RequestInfo): Promise<Reply> {
  const path = info.segments.join('/');
  const methods = info.segments.length === 1 ? ROUTES.get(path) : undefined;
  if (!methods) throw notFound(`Not Found: the OAuth 2.0 interface has no /${excerpt(path)}; it serves /authorize, /token, /revoke, /introspect and /userinfo`);
  const handler = methods.get(info.method);
  if (!handler) {
    const allowed = [...methods.keys()].join(', ');
    throw new HttpError(405, `Method Not Allowed: /${path} accepts ${allowed}`, { Allow: allowed });
  }
  return handler(ctx, info);
}

/**
 * Answers of the OAuth 2.0 token endpoints: JSON that no cache keeps, and
 * errors as RFC 6749 section 5.2 words them, `{error, error_description}`,
 * 401 with a Basic challenge for a client that failed to authenticate. A
 * refused grant (an invalid, expired or spent code or refresh token) is 403,
 * as the service's oauth2.json documents it for /token, where RFC 6749 says
 * 400: a client must read the error code, not the status.
 */
import type { SandboxContext } from '../context.js';
import { ReplyError } from '../errors.js';
import { json, type Reply } from '../http/respond.js';
import { excerpt } from '../limits.js';

/** The error codes of RFC 6749 section 5.2 this sandbox answers with. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type';

/** Headers of every token-endpoint answer: tokens and errors must not be cached (RFC 6749 section 5.1). */
export const NO_STORE: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** A JSON answer with NO_STORE. */
export function noStoreJson(value: unknown, status = 200): Reply {
  return json(value, status, { ...NO_STORE });
}

/** An OAuth error to throw: 401 for invalid_client (with `WWW-Authenticate: Basic realm="<instance>"`), 403 for invalid_grant, else 400. */
export function oauthError(ctx: SandboxContext, error: OAuthErrorCode, description: string): ReplyError {
  const body = { error, error_description: excerpt(description, 300) };
  if (error === 'invalid_client') {
    return new ReplyError(json(body, 401, { ...NO_STORE, 'WWW-Authenticate': `Basic realm="${ctx.instance}"` }));
  }
  return new ReplyError(noStoreJson(body, error === 'invalid_grant' ? 403 : 400));
}

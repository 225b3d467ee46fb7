/**
 * An authorization request (RFC 6749 section 4.1.1, PKCE per RFC 7636), checked
 * in two steps. First the client and its redirect URI: until both are known
 * good, nothing may be sent to that URI, so a problem there is an HTML error
 * page (400). Then everything else: a problem there goes back to the client
 * by a redirect with `error`, `error_description` and `state` (section 4.1.2.1).
 */
import { ReplyError } from '../errors.js';
import { empty, type Reply } from '../http/respond.js';
import { excerpt } from '../limits.js';
import type { SandboxContext } from '../context.js';
import { findClient, type OAuthClient } from './clients.js';
import { S256_CHALLENGE } from './codes.js';
import { errorPage, htmlReply } from './pages.js';
import type { Params } from './params.js';
import { redirectUriProblem } from './redirect-uris.js';

/** The parameters of an authorization request; the forms carry them in hidden fields. */
export const REQUEST_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'response_mode', 'state', 'code_challenge', 'code_challenge_method', 'scope'] as const;

/** Where an authorization request may end: a known, active client and one of its redirect URIs. */
export interface AuthorizationTarget {
  readonly client: OAuthClient;
  readonly redirectUri: string;
}

/** An RFC 6749 section 4.1.2.1 error, to send to the redirect URI. */
export interface RedirectError {
  readonly error: 'invalid_request' | 'unsupported_response_type' | 'access_denied';
  readonly description: string;
}

/** The `/authorize` path of an instance (where the forms post). */
export function authorizePath(ctx: SandboxContext): string {
  return `/${ctx.instance}/oauth2/v1/authorize`;
}

/** A 400 error page to throw: the request cannot be sent back to any client. */
export function badRequestPage(text: string): ReplyError {
  return new ReplyError(htmlReply(400, errorPage('Cannot authorize', `${text}.`)));
}

/** Step one: the client and redirect URI, or a 400 error page (never a redirect). */
export function resolveTarget(ctx: SandboxContext, params: Params): AuthorizationTarget {
  const whole = params.problems.find((p) => p.name === undefined);
  if (whole) throw badRequestPage(`This authorization request is malformed: ${whole.message}`);
  const bad = params.problem(['client_id', 'redirect_uri']);
  if (bad) throw badRequestPage(`This authorization request is malformed: ${bad.message}`);
  const clientId = params.get('client_id');
  if (clientId === undefined) throw badRequestPage("This authorization request names no application: 'client_id' is required");
  const client = findClient(ctx, clientId);
  if (!client?.active) throw badRequestPage(`No active application has the client_id '${excerpt(clientId)}'`);
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined) throw badRequestPage("This authorization request has no 'redirect_uri'");
  const problem = redirectUriProblem(client, redirectUri);
  if (problem) throw badRequestPage(`Cannot send you back to ${excerpt(redirectUri, 200)}: ${problem}`);
  return { client, redirectUri };
}

/** Step two: what else is wrong with the request; undefined when nothing is. */
export function requestError(params: Params): RedirectError | undefined {
  const bad = params.problem([...REQUEST_PARAMS]);
  if (bad) return { error: 'invalid_request', description: bad.message };
  const type = params.get('response_type');
  if (type === undefined) return { error: 'invalid_request', description: "'response_type' is required; it must be 'code'" };
  if (type !== 'code') return { error: 'unsupported_response_type', description: "the only response_type is 'code'" };
  const mode = params.get('response_mode');
  if (mode !== undefined && mode !== 'query') return { error: 'invalid_request', description: "the only response_mode this sandbox serves is 'query'" };
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (method !== undefined && challenge === undefined) return { error: 'invalid_request', description: "'code_challenge_method' needs a 'code_challenge'" };
  if (challenge !== undefined && method !== 'S256') return { error: 'invalid_request', description: "'code_challenge_method' must be S256 (plain is not accepted)" };
  if (challenge !== undefined && !S256_CHALLENGE.test(challenge)) {
    return { error: 'invalid_request', description: "'code_challenge' must be the base64url SHA-256 of the verifier (43 characters)" };
  }
  return undefined;
}

/** The request parameters that were given, to carry through the forms. */
export function carriedParams(params: Params): ReadonlyMap<string, string> {
  return new Map(REQUEST_PARAMS.flatMap((name) => {
    const value = params.get(name);
    return value === undefined ? [] : [[name, value] as const];
  }));
}

/** A 303 to the redirect URI with these parameters added to its query (the ones undefined left out). */
export function redirectTo(uri: string, extra: Readonly<Record<string, string | undefined>>, headers: Readonly<Record<string, string>> = {}): Reply {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) url.searchParams.append(name, value);
  return empty(303, { ...headers, Location: url.href, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
}

/** The redirect of an error, with the request's state (unless the state itself was the problem). */
export function redirectError(target: AuthorizationTarget, params: Params, err: RedirectError): Reply {
  return redirectTo(target.redirectUri, { error: err.error, error_description: err.description, state: params.get('state') });
}

/** What the service's OAuth answers and oauth4webapi's checks mean, as svc errors (one line, no secret). */
import { AuthError, SvcError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { TokenAnswerError } from './grant.js';
import type { OAuthLibs } from './libs.js';

/** Longest error code or description quoted from an answer. */
const MAX_QUOTED = 300;

/**
 * Text an answer (or the browser's redirect) carried, made safe to print as
 * part of one line: control characters (line breaks, terminal escapes) and
 * Unicode line separators and direction overrides become a space, and it is
 * cut to a bounded length. Whoever sends it must not be able to write lines
 * of their own on svc's terminal.
 */
export function quoted(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return shown(flat, MAX_QUOTED);
}

const codeAndWhy = (error: string, description: string | undefined): string => (description ? `${quoted(error)}: ${quoted(description)}` : quoted(error));

/** The RFC 6749 error code and description of a refused OAuth request, when that is what `err` is. */
export function refusal(libs: OAuthLibs, err: unknown): string | undefined {
  if (err instanceof libs.oauth.ResponseBodyError) return codeAndWhy(err.error, err.error_description);
  if (err instanceof libs.oauth.AuthorizationResponseError) return codeAndWhy(err.error, err.error_description);
  if (err instanceof libs.oauth.WWWAuthenticateChallengeError) {
    const c = err.cause[0];
    const code = c?.parameters.error;
    return code ? codeAndWhy(code, c.parameters.error_description) : `HTTP ${err.status}`;
  }
  return undefined;
}

/** A refused request as exit 4 with `fix`; a malformed answer as exit 1; anything else unchanged. */
export function oauthError(libs: OAuthLibs, err: unknown, what: string, fix: string): unknown {
  const why = refusal(libs, err);
  if (why !== undefined) return new AuthError(`${what} was refused by the service (${why}); ${fix}`);
  if (err instanceof TokenAnswerError) return new SvcError(`${what} failed: ${err.message}`);
  const tokenType = (err as { cause?: { body?: { token_type?: unknown } } } | null)?.cause?.body?.token_type;
  if (err instanceof libs.oauth.UnsupportedOperationError && typeof tokenType === 'string') {
    // oauth4webapi knows Bearer and DPoP; svc sends Bearer only (grant.ts refuses DPoP).
    return new SvcError(`${what} failed: the service's answer is not valid OAuth 2.0 (token_type must be Bearer, not '${quoted(tokenType).slice(0, 40)}')`);
  }
  if (err instanceof libs.oauth.OperationProcessingError || err instanceof libs.oauth.UnsupportedOperationError) {
    return new SvcError(`${what} failed: the service's answer is not valid OAuth 2.0 (${quoted(err.message)})`);
  }
  return err;
}

/** What the service's OAuth answers and oauth4webapi's checks mean, as svc errors (one line, no secret). */
import { AuthError, SvcError } from '../../errors.js';
import type { OAuthLibs } from './libs.js';

/** The RFC 6749 error code and description of a refused OAuth request, when that is what `err` is. */
export function refusal(libs: OAuthLibs, err: unknown): string | undefined {
  if (err instanceof libs.oauth.ResponseBodyError) return err.error_description ? `${err.error}: ${err.error_description}` : err.error;
  if (err instanceof libs.oauth.AuthorizationResponseError) return err.error_description ? `${err.error}: ${err.error_description}` : err.error;
  if (err instanceof libs.oauth.WWWAuthenticateChallengeError) {
    const c = err.cause[0];
    const code = c?.parameters.error;
    return code ? `${code}${c.parameters.error_description ? `: ${c.parameters.error_description}` : ''}` : `HTTP ${err.status}`;
  }
  return undefined;
}

/** A refused request as exit 4 with `fix`; a malformed answer as exit 1; anything else unchanged. */
export function oauthError(libs: OAuthLibs, err: unknown, what: string, fix: string): unknown {
  const why = refusal(libs, err);
  if (why !== undefined) return new AuthError(`${what} was refused by the service (${why}); ${fix}`);
  if (err instanceof libs.oauth.OperationProcessingError) return new SvcError(`${what} failed: the service's answer is not valid OAuth 2.0 (${err.message})`);
  return err;
}

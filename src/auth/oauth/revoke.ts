/**
 * Ending a browser sign-in at the service: its refresh token and its access
 * token revoked at `/revoke` (RFC 7009) with the client's credentials.
 * Resolves to what could not be revoked, in words (nothing: everything was).
 */
import type { HttpClient } from '../../http/client.js';
import { oauthServer } from './endpoints.js';
import { refusal } from './errors.js';
import type { OAuthGrant } from './grant.js';
import { oauthLibs } from './libs.js';

export async function revokeGrant(http: HttpClient, grant: OAuthGrant, clientSecret: string | undefined): Promise<string | undefined> {
  if (!clientSecret) return `the client secret of ${grant.clientId} is not available (set SVC_CLIENT_SECRET), so the tokens were not revoked at the service`;
  const libs = await oauthLibs();
  const server = oauthServer(libs, http, grant.clientId);
  const auth = libs.oauth.ClientSecretBasic(clientSecret);
  for (const [token, what] of [
    [grant.refreshToken, 'refresh token'],
    [grant.accessToken, 'access token'],
  ] as const) {
    try {
      const res = await libs.oauth.revocationRequest(server.as, server.client, auth, token, server.options);
      await libs.oauth.processRevocationResponse(res);
    } catch (err) {
      const why = refusal(libs, err) ?? (err as Error).message;
      return `the service did not revoke the ${what} (${why})`;
    }
  }
  return undefined;
}

/** The OAuth libraries (libs-source.ts), loaded on first use: no other command pays for them. */
export type OAuthLibs = typeof import('./libs-source.js');

let loading: Promise<OAuthLibs> | undefined;

export function oauthLibs(): Promise<OAuthLibs> {
  return (loading ??= import('./libs-source.js'));
}

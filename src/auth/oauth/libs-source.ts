/**
 * The libraries an OAuth sign-in needs, in one module: oauth4webapi (PKCE,
 * the authorization response, the token, refresh and revocation requests and
 * their errors) and proper-lockfile (the cross-process lock around a refresh).
 * The build bundles this module apart (dist/chunks/oauth.cjs), loaded only by
 * a command that signs in, refreshes or revokes (see libs.ts).
 */
export * as oauth from 'oauth4webapi';
export { default as lockfile } from 'proper-lockfile';

/**
 * `svc logout`: asks the service to invalidate the token (a browser
 * sign-in's tokens are revoked at the OAuth interface), then forgets a stored
 * one (keychain or plain file); a token from SVC_TOKEN or a file stays where
 * it is, and svc says so. Not signed in is not an error.
 */
import { createPlainFileStore } from '../../../auth/plain-file.js';
import { accountName } from '../../../auth/store.js';
import type { NoOptions } from '../../../cli/command.js';
import { keychainOf, type Connection } from '../../../cli/connection.js';
import type { Context } from '../../../cli/context.js';

/** Revokes a browser sign-in's tokens; the sentence to say, and a warning when the service did not revoke them. */
async function endBrowserSignIn(ctx: Context, conn: Connection): Promise<string> {
  const grant = conn.oauth!.grant();
  const store = conn.token?.source === 'keychain' ? await keychainOf(ctx.deps) : createPlainFileStore(ctx.deps.configDir, () => undefined);
  const secret = ctx.deps.env.SVC_CLIENT_SECRET || (await store.get(accountName(conn.target.key, 'clientsecret')));
  const { revokeGrant } = await import('../../../auth/oauth/revoke.js');
  const problem = await revokeGrant(conn.client, grant, secret);
  if (problem) ctx.deps.stderr.write(`svc: warning: ${problem}; they end by themselves (the access token within the hour)\n`);
  return problem ? 'the browser sign-in was forgotten here' : 'the browser sign-in was revoked';
}

export async function runLogout(_opts: NoOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  const conn = await ctx.connect({ token: false });
  if (!conn.token) {
    deps.stderr.write(`not signed in to ${conn.target.label}; nothing to do\n`);
    return;
  }
  let what: string;
  if (conn.oauth) {
    what = await endBrowserSignIn(ctx, conn);
  } else {
    const res = await conn.client.request({ method: 'GET', root: 'auth', path: '/logout', accept: [401] });
    what = res.status === 205 ? 'the token was invalidated' : 'the token was no longer valid';
    await res.body.dump();
  }
  const source = conn.token.source;
  if (source === 'keychain') await (await keychainOf(deps)).delete(accountName(conn.target.key, 'token'));
  if (source === 'plain file') await createPlainFileStore(deps.configDir, () => undefined).delete(accountName(conn.target.key, 'token'));
  if (conn.target.profile) conn.profiles.save({ ...conn.target.profile, tokenExpires: undefined });
  const kept = source === 'keychain' || source === 'plain file' ? '' : `; it came from ${source === 'env' ? 'SVC_TOKEN' : (conn.token.where ?? 'a file')}, remove it there`;
  deps.stderr.write(`signed out of ${conn.target.label}: ${what}${kept}\n`);
}

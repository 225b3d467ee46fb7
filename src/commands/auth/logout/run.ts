/**
 * `svc logout`: asks the service to invalidate the token, then forgets a
 * stored one (keychain or plain file); a token from SVC_TOKEN or a file stays
 * where it is, and svc says so. Not signed in is not an error.
 */
import { createPlainFileStore } from '../../../auth/plain-file.js';
import { accountName } from '../../../auth/store.js';
import type { NoOptions } from '../../../cli/command.js';
import { keychainOf } from '../../../cli/connection.js';
import type { Context } from '../../../cli/context.js';

export async function runLogout(_opts: NoOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  const conn = await ctx.connect({ token: false });
  if (!conn.token) {
    deps.stderr.write(`not signed in to ${conn.target.label}; nothing to do\n`);
    return;
  }
  const res = await conn.client.request({ method: 'GET', root: 'auth', path: '/logout', accept: [401] });
  const invalidated = res.status === 205;
  await res.body.dump();
  const source = conn.token.source;
  if (source === 'keychain') await (await keychainOf(deps)).delete(accountName(conn.target.key, 'token'));
  if (source === 'plain file') await createPlainFileStore(deps.configDir, () => undefined).delete(accountName(conn.target.key, 'token'));
  if (conn.target.profile) conn.profiles.save({ ...conn.target.profile, tokenExpires: undefined });
  const what = invalidated ? 'the token was invalidated' : 'the token was no longer valid';
  const kept = source === 'keychain' || source === 'plain file' ? '' : `; it came from ${source === 'env' ? 'SVC_TOKEN' : (conn.token.where ?? 'a file')}, remove it there`;
  deps.stderr.write(`signed out of ${conn.target.label}: ${what}${kept}\n`);
}

/**
 * `svc logout`: asks the service to invalidate the token (a browser
 * sign-in's tokens are revoked at the OAuth interface), then forgets a stored
 * one (keychain or plain file); a token from SVC_TOKEN or a file stays where
 * it is, and svc says so. Not signed in is not an error. A stored browser
 * sign-in that is damaged (every other command refuses it) is forgotten
 * without asking the service, which cannot be told what to revoke.
 */
import { DamagedGrantError, parseGrant } from '../../../auth/oauth/grant.js';
import { createPlainFileStore } from '../../../auth/plain-file.js';
import { accountName, KeychainUnavailableError, type CredentialStore } from '../../../auth/store.js';
import type { NoOptions } from '../../../cli/command.js';
import { keychainOf, plainStoreOf, type Connection } from '../../../cli/connection.js';
import { refreshLockFile } from '../../../cli/oauth-credential.js';
import type { Context } from '../../../cli/context.js';
import { ExitCode, SvcError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';

/**
 * Revokes a browser sign-in's tokens and forgets them, holding the refresh lock: another svc renewing the
 * sign-in meanwhile is waited for, and the tokens it stored are the ones revoked (a renewal after this finds
 * nothing stored and says so). The sentence to say, and a warning when the service did not revoke them.
 */
async function endBrowserSignIn(ctx: Context, conn: Connection): Promise<string> {
  const { deps } = ctx;
  const store = conn.token?.source === 'keychain' ? await keychainOf(deps) : createPlainFileStore(deps.configDir, () => undefined);
  const account = accountName(conn.target.key, 'token');
  const [{ revokeGrant }, { takeRefreshLock }] = await Promise.all([import('../../../auth/oauth/revoke.js'), import('../../../auth/oauth/session.js')]);
  const release = await takeRefreshLock(refreshLockFile(deps.configDir, conn.target.key), {
    onWait: () => void deps.stderr.write('svc: waiting for another svc that is renewing this sign-in\n'),
  });
  try {
    const stored = await store.get(account);
    const grant = stored === undefined ? undefined : parseGrant(stored);
    // Signed out meanwhile by another svc: nothing left to revoke.
    if (!grant) return 'the browser sign-in was already forgotten here';
    const secret = deps.env.SVC_CLIENT_SECRET || (await store.get(accountName(conn.target.key, 'clientsecret')));
    const problem = await revokeGrant(conn.client, grant, secret);
    if (problem) deps.stderr.write(`svc: warning: ${problem}; they end by themselves (the access token within the hour)\n`);
    await store.delete(account);
    return problem ? 'the browser sign-in was forgotten here' : 'the browser sign-in was revoked';
  } finally {
    await release();
  }
}

/** Whether the store's entry is a damaged browser sign-in; false when the store has none or cannot be read. */
async function isDamaged(store: CredentialStore | undefined, account: string): Promise<boolean> {
  try {
    const value = await store?.get(account);
    if (value === undefined) return false;
    parseGrant(value);
    return false;
  } catch (err) {
    if (err instanceof DamagedGrantError) return true;
    if (err instanceof KeychainUnavailableError) return false;
    throw err;
  }
}

/** Forgets the damaged sign-in the credential chain stopped at: the keychain's entry, else the plain file's. */
async function forgetDamaged(ctx: Context): Promise<void> {
  const target = await ctx.target();
  const account = accountName(target.key, 'token');
  const keychain = await keychainOf(ctx.deps);
  const store = (await isDamaged(keychain, account)) ? keychain : await plainStoreOf(ctx.deps, target);
  if (store && (await isDamaged(store, account))) await store.delete(account);
  if (target.profile) (await ctx.profiles()).save({ ...target.profile, tokenExpires: undefined });
  ctx.deps.stderr.write(`signed out of ${shown(target.label)}: the stored browser sign-in was damaged, so it was forgotten here without revoking its tokens (they end by themselves)\n`);
}

/** The plain-file store for deleting (it reads or writes no secret to warn about); waits on its lock are said. */
function plainForDeleting(ctx: Context): CredentialStore {
  return createPlainFileStore(ctx.deps.configDir, () => undefined, { onLockWait: (line) => void ctx.deps.stderr.write(`svc: ${line}\n`) });
}

/**
 * With no token the credential chain would use, what either store still holds under the target's name (a
 * login stopped between keeping its token and saving the profile's choice of store, an older login to the
 * other store) goes, never sent anywhere: signed out means no stored token. The stores something was removed from.
 */
async function forgetLeftTokens(ctx: Context, conn: Connection): Promise<string[]> {
  const account = accountName(conn.target.key, 'token');
  const removed: string[] = [];
  if (await plainForDeleting(ctx).delete(account)) removed.push('plain file');
  try {
    if (await (await keychainOf(ctx.deps)).delete(account)) removed.push('keychain');
  } catch (err) {
    if (!(err instanceof KeychainUnavailableError)) throw err;
  }
  if (removed.length > 0 && conn.target.profile) conn.profiles.save({ ...conn.target.profile, tokenExpires: undefined });
  return removed;
}

export async function runLogout(_opts: NoOptions, ctx: Context): Promise<void> {
  const { deps } = ctx;
  let conn: Connection;
  try {
    conn = await ctx.connect({ token: false });
  } catch (err) {
    if (!(err instanceof DamagedGrantError)) throw err;
    await forgetDamaged(ctx);
    return;
  }
  const label = shown(conn.target.label);
  if (!conn.token) {
    const left = await forgetLeftTokens(ctx, conn);
    deps.stderr.write(
      left.length > 0
        ? `signed out of ${label}: a token the profile did not use (left by a stopped login) was forgotten here from the ${left.join(' and the ')}; the service was not told, so it stays valid there until it expires\n`
        : `not signed in to ${label}; nothing to do\n`,
    );
    return;
  }
  let what: string;
  if (conn.oauth) {
    what = await endBrowserSignIn(ctx, conn);
  } else {
    try {
      const res = await conn.client.request({ method: 'GET', root: 'auth', path: '/logout', accept: [401] });
      what = res.status === 205 ? 'the token was invalidated' : 'the token was no longer valid';
      await res.body.dump();
    } catch (err) {
      // The service cannot be reached (or keeps failing): the token is forgotten here all the same, as a
      // browser sign-in's is, so a machine can be signed out of an instance that is gone.
      if (!(err instanceof SvcError) || err.exitCode !== ExitCode.failure) throw err;
      deps.stderr.write(`svc: warning: the service was not told (${err.message}), so the token stays valid there until it expires\n`);
      what = conn.token.source === 'keychain' || conn.token.source === 'plain file' ? 'the token was forgotten here' : 'the service was not told';
    }
  }
  const source = conn.token.source;
  if (source === 'keychain') await (await keychainOf(deps)).delete(accountName(conn.target.key, 'token'));
  if (source === 'plain file') await plainForDeleting(ctx).delete(accountName(conn.target.key, 'token'));
  // A token the other store may still hold (a login there before a login to this one) goes too, best effort:
  // signed out means no stored token svc would send.
  if (source === 'keychain') await plainForDeleting(ctx).delete(accountName(conn.target.key, 'token')).catch(() => undefined);
  if (source === 'plain file') await keychainOf(deps).then((k) => k.delete(accountName(conn.target.key, 'token'))).catch(() => undefined);
  if (conn.target.profile) conn.profiles.save({ ...conn.target.profile, tokenExpires: undefined });
  const kept = source === 'keychain' || source === 'plain file' ? '' : `; it came from ${source === 'env' ? 'SVC_TOKEN' : (conn.token.where ?? 'a file')}, remove it there`;
  deps.stderr.write(`signed out of ${label}: ${what}${kept}\n`);
}

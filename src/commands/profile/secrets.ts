/**
 * A profile's secrets as `svc profile` sees them: whether a token is stored
 * (never its value) and removing them, best effort, from the keychain and
 * the plain file.
 */
import { KeychainUnavailableError, SECRET_KINDS, accountName, type SecretKind } from '../../auth/store.js';
import { keychainOf, plainStoreOf } from '../../cli/connection.js';
import type { Deps } from '../../cli/deps.js';
import type { Profile } from '../../config/profiles.js';
import { shown } from '../../util/shown.js';
import { secretsFit } from '../../config/secrets-fit.js';

/** Where a profile's token is stored, if anywhere; `problem` when the keychain could not be asked. */
export interface StoredToken {
  readonly store?: 'keychain' | 'plain file';
  readonly problem?: string;
}

/**
 * A profile's URL as `svc profile` shows it: a password in it (a hand edit, an older config.json;
 * https://user:pass@host/…) is replaced, as kubectl's `config view` does: https://user:REDACTED@host/….
 */
export function shownUrl(url: string): string {
  // The authority's last '@' ends the user info (a password may hold '@'); its first ':' ends the user.
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)@/, (all, scheme: string, info: string) => (info.includes(':') ? `${scheme}${info.slice(0, info.indexOf(':'))}:REDACTED@` : all));
}

/** The account prefix of a profile's secrets (as connection.ts names it). */
export function profileKey(name: string): string {
  return `profile:${name}`;
}


/**
 * Looks up whether a token is stored for the profile: keychain first, then the plain file when it opted in.
 * None when what is stored under its name is another instance's (secretsFit): svc would not send it.
 */
export async function findStoredToken(deps: Deps, profile: Profile): Promise<StoredToken> {
  const insecureStorage = profile.insecureStorage === true;
  const account = accountName(profileKey(profile.name), 'token');
  let problem: string | undefined;
  // The keychain as the credential chain reads it: only what is this instance's, and not after a plain-file login.
  if (secretsFit(profile) && !insecureStorage) {
    try {
      if (await (await keychainOf(deps)).get(account)) return { store: 'keychain' };
    } catch (err) {
      if (!(err instanceof KeychainUnavailableError)) throw err;
      problem = err.reason;
    }
  }
  if (insecureStorage && (await (await plainStoreOf(deps))?.get(account))) return { store: 'plain file' };
  return problem ? { problem } : {};
}

/**
 * Whether the profile may have secrets in the keychain: a login without
 * --insecure-storage stored them there (the profile keeps its user or
 * token expiry). A profile never signed in, or signed in to the plain file,
 * has none there.
 */
function mayUseKeychain(profile: Profile): boolean {
  return profile.insecureStorage !== true && (profile.user !== undefined || profile.tokenExpires !== undefined);
}

/** What forgetting a profile's secrets did. */
export interface Forgotten {
  /** The kinds of secret removed (from the keychain or the plain file). */
  readonly removed: readonly SecretKind[];
  /**
   * Warnings for stderr (one line each) about secrets that may be left over:
   * the keychain could not be reached and the profile had put secrets there,
   * or the plain file could not be rewritten. None when nothing was there.
   */
  readonly warnings: readonly string[];
}

/**
 * Deletes the profile's token, application secret and client secret from the
 * keychain and the plain file; warns only about what may be left over.
 */
export async function forgetSecrets(deps: Deps, profile: Profile): Promise<Forgotten> {
  const { name } = profile;
  const removed = new Set<SecretKind>();
  const warnings: string[] = [];
  try {
    const keychain = await keychainOf(deps);
    for (const kind of SECRET_KINDS) if (await keychain.delete(accountName(profileKey(name), kind))) removed.add(kind);
  } catch (err) {
    if (!(err instanceof KeychainUnavailableError)) throw err;
    if (mayUseKeychain(profile)) {
      const service = deps.env.SVC_KEYCHAIN_SERVICE || 'svc';
      warnings.push(
        `svc: warning: the keychain could not be reached (${err.reason}), so the secrets of '${shown(name)}' may be left in it; delete its entries 'profile:${shown(name)}/…' of service '${service}' once it can be reached`,
      );
    }
  }
  try {
    // No warning about plain text here: deleting reads or writes no secret.
    const { createPlainFileStore } = await import('../../auth/plain-file.js');
    const plain = createPlainFileStore(deps.configDir, () => undefined, { onLockWait: (line) => void deps.stderr.write(`svc: ${line}\n`) });
    for (const kind of SECRET_KINDS) if (await plain.delete(accountName(profileKey(name), kind))) removed.add(kind);
  } catch (err) {
    warnings.push(`svc: warning: the plain file could not be updated (${(err as Error).message.split('\n')[0]}), so the secrets of '${shown(name)}' may be left in it`);
  }
  return { removed: SECRET_KINDS.filter((k) => removed.has(k)), warnings };
}

/**
 * A profile's secrets as `svc profile` sees them: whether a token is stored
 * (never its value) and removing them, best effort, from the keychain and
 * the plain file.
 */
import { KeychainUnavailableError, accountName } from '../../auth/store.js';
import { keychainOf } from '../../cli/connection.js';
import type { Deps } from '../../cli/deps.js';

/** Where a profile's token is stored, if anywhere; `problem` when the keychain could not be asked. */
export interface StoredToken {
  readonly store?: 'keychain' | 'plain file';
  readonly problem?: string;
}

/** The account prefix of a profile's secrets (as connection.ts names it). */
export function profileKey(name: string): string {
  return `profile:${name}`;
}

async function plainStore(deps: Deps, quiet: boolean) {
  const { createPlainFileStore } = await import('../../auth/plain-file.js');
  return createPlainFileStore(deps.configDir, (m) => {
    if (!quiet) deps.stderr.write(`svc: ${m}\n`);
  });
}

/** Looks up whether a token is stored for the profile: keychain first, then the plain file when it opted in. */
export async function findStoredToken(deps: Deps, name: string, insecureStorage: boolean): Promise<StoredToken> {
  const account = accountName(profileKey(name), 'token');
  let problem: string | undefined;
  try {
    if (await (await keychainOf(deps)).get(account)) return { store: 'keychain' };
  } catch (err) {
    if (!(err instanceof KeychainUnavailableError)) throw err;
    problem = err.reason;
  }
  if (insecureStorage && (await (await plainStore(deps, false)).get(account))) return { store: 'plain file' };
  return problem ? { problem } : {};
}

/**
 * Deletes the profile's token and application secret from the keychain and
 * the plain file. Resolves to why the keychain could not be cleaned, if so.
 */
export async function forgetSecrets(deps: Deps, name: string): Promise<string | undefined> {
  const accounts = [accountName(profileKey(name), 'token'), accountName(profileKey(name), 'appsecret'), accountName(profileKey(name), 'clientsecret')];
  let problem: string | undefined;
  try {
    const keychain = await keychainOf(deps);
    for (const account of accounts) await keychain.delete(account);
  } catch (err) {
    if (!(err instanceof KeychainUnavailableError)) throw err;
    problem = err.reason;
  }
  try {
    const plain = await plainStore(deps, true);
    for (const account of accounts) await plain.delete(account);
  } catch (err) {
    problem ??= `the plain file could not be updated (${(err as Error).message})`;
  }
  return problem;
}

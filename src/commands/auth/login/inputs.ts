/**
 * What `svc login` needs before it sends anything, checked in this order:
 * the inputs that can only come from flags or a terminal (a missing one is
 * exit 2 naming the flag, before the keychain is touched, so a cron job on a
 * machine without a keychain learns what it forgot first); then a store that
 * can keep the token (checked to work, so svc never gets a token it cannot
 * keep, and never falls back to plain text on its own); then the user's name
 * and secrets, from flags, stdin, SVC_APPSECRET, the store, or questions on a
 * terminal.
 */
import { randomBytes } from 'node:crypto';
import { accountName, KeychainUnavailableError, SECRET_KINDS, type CredentialStore } from '../../../auth/store.js';
import { keychainOf, plainStoreOf, type Target } from '../../../cli/connection.js';
import type { Deps } from '../../../cli/deps.js';
import { ask, canPrompt, readAllStdin } from '../../../cli/prompt.js';
import type { Profile, ProfileStore } from '../../../config/profiles.js';
import { SvcError, UsageError } from '../../../errors.js';

/** The store the token will go to, checked to work; throws KeychainUnavailableError as it is. */
async function openStore(deps: Deps, insecureStorage: boolean): Promise<CredentialStore> {
  if (insecureStorage) return (await plainStoreOf(deps))!;
  const keychain = await keychainOf(deps);
  const probe = accountName(`probe:${randomBytes(6).toString('hex')}`, 'token');
  await keychain.set(probe, 'probe');
  await keychain.delete(probe);
  return keychain;
}

/** Why svc will not sign in without a keychain, and what to do instead (exit 1). */
function keychainRefusal(err: KeychainUnavailableError): SvcError {
  return new SvcError(
    `${err.message}; svc will not keep the token in plain text on its own: in scripts use SVC_TOKEN or SVC_TOKEN_FILE, or run 'svc login --insecure-storage' to keep it in a 0600 file`,
  );
}

/** The store the token will go to, checked to work before anything is sent. */
export async function chooseStore(deps: Deps, insecureStorage: boolean): Promise<CredentialStore> {
  try {
    return await openStore(deps, insecureStorage);
  } catch (err) {
    throw err instanceof KeychainUnavailableError ? keychainRefusal(err) : err;
  }
}

function need(what: string, fix: string): never {
  throw new UsageError(`${what} ${what.includes(' and ') ? 'are' : 'is'} needed and there is no terminal to ask on: ${fix}`);
}

export interface LoginInputs {
  readonly user: string;
  readonly password: string;
  readonly appsecret: string;
  /** The secret was typed or piped in now (so it is worth keeping). */
  readonly appsecretIsNew: boolean;
}

/** Where the flags say the inputs come from (LoginOptions has these). */
export interface InputSources {
  readonly user?: string;
  readonly passwordStdin: boolean;
  readonly appsecretStdin: boolean;
}

/**
 * Without a terminal, the user name and password must come from the flags:
 * exit 2 naming the flag when one does not (nothing is read or sent).
 */
export function checkInputSources(deps: Deps, opts: InputSources): void {
  if (canPrompt(deps)) return;
  // Both named at once, so a script learns everything it forgot in one run.
  if (opts.user === undefined && !opts.passwordStdin) need('a user name and a password', 'pass --user NAME, and pipe the password in with --password-stdin');
  if (opts.user === undefined) need('a user name', 'pass --user NAME');
  if (!opts.passwordStdin) need('a password', 'pipe it in with --password-stdin');
}

/**
 * The store of a password login (chooseStore). Without a terminal and
 * without a keychain, an application secret given nowhere is the input that
 * is missing (it could only have come from that keychain): exit 2 naming it,
 * before the keychain's own failure.
 */
export async function chooseLoginStore(deps: Deps, opts: InputSources & { readonly insecureStorage: boolean }): Promise<CredentialStore> {
  try {
    return await openStore(deps, opts.insecureStorage);
  } catch (err) {
    if (!(err instanceof KeychainUnavailableError)) throw err;
    if (!canPrompt(deps) && !deps.env.SVC_APPSECRET && !opts.appsecretStdin) needAppsecret();
    throw keychainRefusal(err);
  }
}

/** The one-time code a two-factor account needs, when there is no terminal to ask on: exit 2. */
export function needOtp(): never {
  return need('the one-time code of this two-factor account', 'pass --otp CODE or set SVC_OTP');
}

function needAppsecret(): never {
  return need('the application secret', 'set SVC_APPSECRET, or pass --appsecret-stdin');
}

/** The user name, password and application secret; asks only on a terminal. */
export async function gatherInputs(deps: Deps, opts: InputSources, store: CredentialStore, target: Target): Promise<LoginInputs> {
  const tty = canPrompt(deps);
  const user = opts.user ?? (tty ? await ask(deps, 'user name or e-mail') : need('a user name', 'pass --user NAME'));
  if (!user) throw new UsageError('the user name is empty');
  const password = opts.passwordStdin
    ? await readAllStdin(deps)
    : tty
      ? await ask(deps, `password for ${user}`, { hidden: true })
      : need('a password', 'pipe it in with --password-stdin');
  if (!password) throw new UsageError('the password is empty');
  const fromEnv = deps.env.SVC_APPSECRET;
  const fromStdin = opts.appsecretStdin ? await readAllStdin(deps) : undefined;
  const stored = fromEnv || fromStdin || !storeFits(store, target) ? undefined : await store.get(accountName(target.key, 'appsecret'));
  const typed = fromEnv || fromStdin || stored ? undefined : tty ? await ask(deps, 'application secret', { hidden: true }) : undefined;
  const appsecret = fromEnv || fromStdin || stored || typed;
  if (!appsecret) needAppsecret();
  return { user, password, appsecret, appsecretIsNew: Boolean(fromStdin || typed) };
}

/** Whether what `store` holds under the target's name is this instance's: the plain file's always is, the keychain's per secretsFit. */
export function storeFits(store: CredentialStore, target: Target): boolean {
  return store.kind === 'plain file' || target.storedSecrets;
}

/**
 * The profile's `keychainUrl` after a login stored its secrets in `store`: the
 * instance, once the keychain holds its secrets; else as it was, or a value
 * no URL equals when the keychain holds another instance's (so a plain-file
 * login does not make the keychain's old secrets count as this instance's).
 */
export function keychainUrlAfter(store: CredentialStore, target: Target): string | undefined {
  const url = target.profile?.url;
  if (store.kind === 'keychain' || target.storedSecrets) return url;
  return target.profile?.keychainUrl ?? '';
}

/**
 * Before a login stores its secrets in the keychain for a profile whose
 * keychain secrets are another instance's (secretsFit): removes those, so
 * none of them is taken for this instance's once the profile says its
 * secrets are.
 */
export async function dropOtherInstanceSecrets(store: CredentialStore, target: Target): Promise<void> {
  if (storeFits(store, target)) return;
  for (const kind of SECRET_KINDS) await store.delete(accountName(target.key, kind));
}

/**
 * A warning when an earlier source of the credential chain (--token-file,
 * SVC_TOKEN, SVC_TOKEN_FILE) will keep being used instead of the sign-in
 * just stored, as gh warns about GH_TOKEN; undefined when none is set.
 */
export function shadowedSignIn(deps: Deps, tokenFile: string | undefined): string | undefined {
  const first = tokenFile ? '--token-file' : deps.env.SVC_TOKEN?.trim() ? 'SVC_TOKEN' : deps.env.SVC_TOKEN_FILE ? 'SVC_TOKEN_FILE' : undefined;
  if (!first) return undefined;
  return `svc: warning: ${first} is set, and commands use it before this sign-in; ${first === '--token-file' ? 'drop --token-file' : `unset ${first}`} to use the sign-in`;
}

/**
 * After a login stored its secrets in `store`, what the other store kept for
 * the target goes, best effort: a keychain login removes the plain file's
 * secrets (no token stays on disk in plain text once the user went back to
 * the keychain), a plain-file login the keychain's token (which the chain
 * would otherwise find first for an instance named by URL alone, and which a
 * logout would then end instead of this one).
 */
export async function dropOtherStoreSecrets(deps: Deps, store: CredentialStore, target: Target): Promise<void> {
  try {
    if (store.kind === 'keychain') {
      const { createPlainFileStore } = await import('../../../auth/plain-file.js');
      const plain = createPlainFileStore(deps.configDir, () => undefined, { onLockWait: (line) => void deps.stderr.write(`svc: ${line}\n`) });
      for (const kind of SECRET_KINDS) await plain.delete(accountName(target.key, kind));
    } else {
      await (await keychainOf(deps)).delete(accountName(target.key, 'token'));
    }
  } catch {
    // The other store cannot be reached or rewritten: nothing is read from it for this target meanwhile
    // (a profile's insecureStorage says which store it reads), and the next login or logout tries again.
  }
}

/**
 * Keeps a sign-in the service gave: the profile first learns the store it
 * reads (so a token svc keeps is always one it uses and one `svc logout`
 * finds), then `keep` stores the secrets there, then the profile takes the
 * rest of `fields` (the user, the expiry). Ctrl-C and SIGTERM are held back
 * meanwhile (a second one stops at once); a kill -9 leaves at worst a
 * profile that reads a store holding no token: not signed in, nothing kept.
 * A store that fails puts the profile's store choice back. Says which
 * signal came meanwhile, if one did: the caller ends with exit 130 once it
 * has said what was kept.
 */
export async function keepSignIn(
  deps: Deps,
  store: CredentialStore,
  target: Target,
  profiles: ProfileStore,
  fields: Partial<Profile> & { readonly insecureStorage: boolean },
  keep: () => Promise<void>,
): Promise<{ readonly stopped?: 'SIGINT' | 'SIGTERM' }> {
  const before = target.profile;
  const work = async (): Promise<void> => {
    await dropOtherInstanceSecrets(store, target);
    const keychainUrl = keychainUrlAfter(store, target);
    const choice = { insecureStorage: fields.insecureStorage, keychainUrl };
    const changes = before !== undefined && ((before.insecureStorage === true) !== choice.insecureStorage || before.keychainUrl !== keychainUrl);
    if (before && changes) profiles.save({ ...before, ...choice });
    try {
      await keep();
    } catch (err) {
      if (before && changes) {
        try {
          profiles.save({ ...before, insecureStorage: before.insecureStorage, keychainUrl: before.keychainUrl });
        } catch {
          // the store's failure is what is reported
        }
      }
      throw err;
    }
    await dropOtherStoreSecrets(deps, store, target);
    if (before) profiles.save({ ...before, ...fields, keychainUrl });
  };
  const hold = deps.processes?.holdSignals?.bind(deps.processes);
  if (!hold) {
    await work();
    return {};
  }
  let stopped: 'SIGINT' | 'SIGTERM' | undefined;
  await hold(work, (signal) => {
    stopped = signal;
    deps.stderr.write(`svc: ${signal}: keeping the sign-in first (again to stop at once)\n`);
  });
  return stopped ? { stopped } : {};
}

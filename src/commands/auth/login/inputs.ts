/**
 * What `svc login` needs before it sends anything: a store that can keep the
 * token (checked to work, so svc never gets a token it cannot keep, and never
 * falls back to plain text on its own), and the user's name and secrets, from
 * flags, stdin, SVC_APPSECRET, the store, or questions on a terminal.
 */
import { randomBytes } from 'node:crypto';
import { createPlainFileStore } from '../../../auth/plain-file.js';
import { accountName, KeychainUnavailableError, type CredentialStore } from '../../../auth/store.js';
import { keychainOf, type Target } from '../../../cli/connection.js';
import type { Deps } from '../../../cli/deps.js';
import { ask, canPrompt, readAllStdin } from '../../../cli/prompt.js';
import { SvcError, UsageError } from '../../../errors.js';

/** The store the token will go to, checked to work before anything is sent. */
export async function chooseStore(deps: Deps, insecureStorage: boolean): Promise<CredentialStore> {
  if (insecureStorage) return createPlainFileStore(deps.configDir, (m) => deps.stderr.write(`svc: ${m}\n`));
  const keychain = await keychainOf(deps);
  const probe = accountName(`probe:${randomBytes(6).toString('hex')}`, 'token');
  try {
    await keychain.set(probe, 'probe');
    await keychain.delete(probe);
  } catch (err) {
    if (!(err instanceof KeychainUnavailableError)) throw err;
    throw new SvcError(
      `${err.message}; svc will not keep the token in plain text on its own: in scripts use SVC_TOKEN or SVC_TOKEN_FILE, or run 'svc login --insecure-storage' to keep it in a 0600 file`,
    );
  }
  return keychain;
}

function need(what: string, fix: string): never {
  throw new UsageError(`${what} is needed and there is no terminal to ask on: ${fix}`);
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
  const stored = fromEnv || fromStdin ? undefined : await store.get(accountName(target.key, 'appsecret'));
  const typed = fromEnv || fromStdin || stored ? undefined : tty ? await ask(deps, 'application secret', { hidden: true }) : undefined;
  const appsecret = fromEnv || fromStdin || stored || typed;
  if (!appsecret) need('the application secret', 'set SVC_APPSECRET, or pass --appsecret-stdin');
  return { user, password, appsecret, appsecretIsNew: Boolean(fromStdin || typed) };
}

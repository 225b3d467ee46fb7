/**
 * The credential chain: where the token comes from, first match wins.
 *   1. --token-file FILE   (flag; the token itself never goes on the command line)
 *   2. SVC_TOKEN           (env)
 *   3. SVC_TOKEN_FILE      (token file: the systemd / Kubernetes secret pattern)
 *   4. the OS keychain     (keychain)
 *   5. a plain file, only if the profile opted in with --insecure-storage (plain file)
 */
import { readFileSync, statSync } from 'node:fs';
import { platform } from 'node:os';
import { UsageError } from '../errors.js';
import { parseGrant, type OAuthGrant } from './oauth/grant.js';
import { KeychainUnavailableError, accountName, type CredentialStore } from './store.js';

export type CredentialSource = 'flag' | 'env' | 'token file' | 'keychain' | 'plain file';

export interface ResolvedToken {
  readonly token: string;
  readonly source: CredentialSource;
  /** The file, for the file sources. */
  readonly where?: string;
  /** A stored OAuth 2.0 sign-in (`svc login --web`): `token` is its access token. */
  readonly oauth?: OAuthGrant;
}

/** A token read from a store: a login's plain token, or the access token of a stored OAuth grant. */
function stored(value: string, source: 'keychain' | 'plain file'): ResolvedToken {
  const oauth = parseGrant(value);
  return oauth ? { token: oauth.accessToken, source, oauth } : { token: value, source };
}

/** A store, or how to open it: the chain opens one only when it gets that far. */
export type StoreOf<T> = T | (() => Promise<T>);

export interface ChainInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** --token-file. */
  readonly tokenFile?: string | undefined;
  /** Account prefix of the target (profile name or URL). */
  readonly key: string;
  /** The keychain; opened (its module loaded) only when no earlier source gave a token. */
  readonly keychain: StoreOf<CredentialStore>;
  /** The plain-file store, when the profile opted in; opened only after the keychain had none. */
  readonly plain?: StoreOf<CredentialStore | undefined> | undefined;
  readonly warn: (message: string) => void;
}

const open = async <T,>(store: StoreOf<T>): Promise<T> => (typeof store === 'function' ? (store as () => Promise<T>)() : store);

export interface ChainResult {
  readonly token?: ResolvedToken;
  /** Why the keychain could not be asked, when it could not. */
  readonly keychainProblem?: string;
}

/** Reads a token file: trimmed, non-empty; warns when others may read it. */
export function readTokenFile(file: string, warn: (message: string) => void): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read token file '${file}' (${(err as NodeJS.ErrnoException).code ?? 'error'}); check the path`);
  }
  const token = text.trim();
  if (!token) throw new UsageError(`token file '${file}' is empty`);
  const mode = statSync(file).mode & 0o777;
  if (platform() !== 'win32' && (mode & 0o077) !== 0) {
    warn(`warning: token file ${file} can be read by others (mode ${mode.toString(8)}); run chmod 600 ${file}`);
  }
  return token;
}

/** Walks the chain and returns the first token found, with where it came from. */
export async function resolveToken(input: ChainInput): Promise<ChainResult> {
  if (input.tokenFile) return { token: { token: readTokenFile(input.tokenFile, input.warn), source: 'flag', where: input.tokenFile } };
  const env = input.env.SVC_TOKEN?.trim();
  if (env) return { token: { token: env, source: 'env' } };
  const file = input.env.SVC_TOKEN_FILE;
  if (file) return { token: { token: readTokenFile(file, input.warn), source: 'token file', where: file } };
  let keychainProblem: string | undefined;
  try {
    const t = await (await open(input.keychain)).get(accountName(input.key, 'token'));
    if (t) return { token: stored(t, 'keychain') };
  } catch (err) {
    if (!(err instanceof KeychainUnavailableError)) throw err;
    keychainProblem = err.reason;
  }
  const plain = input.plain === undefined ? undefined : await (await open(input.plain))?.get(accountName(input.key, 'token'));
  if (plain) return { token: stored(plain, 'plain file') };
  return keychainProblem ? { keychainProblem } : {};
}

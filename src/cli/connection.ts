/**
 * Which instance a command talks to, with which token, through which client.
 * The instance: --url / SVC_URL, else --profile / SVC_PROFILE, else the
 * profile chosen with `svc profile use`. The token: the credential chain.
 * The client: src/http with the global --timeout, --retries, --ca-file,
 * --verbose.
 *
 * Everything a connection needs loads when a command connects (commands that
 * do not, `--help` and `describe` among them, load none of it), and in one
 * step: profiles, the chain and the client are imported side by side, not one
 * after another. What is heavy loads only when used: the keychain module when
 * the chain gets to it (never with SVC_TOKEN or a token file), conf at a
 * profile write, node:http or node:https as the client is made, undici only
 * through a proxy.
 */
import type { ChainResult, ResolvedToken } from '../auth/chain.js';
import type { OAuthGrant } from '../auth/oauth/grant.js';
import type { CredentialStore } from '../auth/store.js';
import type { Profile, ProfileStore } from '../config/profiles.js';
import { secretsFit } from '../config/secrets-fit.js';
import { AuthError, UsageError } from '../errors.js';
import type { BearerCredential, HttpClient } from '../http/client.js';
import { parseInstanceUrl } from '../http/urls.js';
import { MAX_TIMER_MS, parseDuration } from '../util/duration.js';
import { validProfileName } from '../config/profile-name.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';
import { version } from '../version.js';
import type { Deps } from './deps.js';
import { fixFor } from './token-advice.js';
import { parseRetries } from './globals.js';

/** The global options that choose and reach an instance (a part of GlobalOptions, src/cli/globals.ts). */
export interface ConnectionOptions {
  readonly profile?: string | undefined;
  readonly url?: string | undefined;
  readonly tokenFile?: string | undefined;
  readonly timeout?: string | undefined;
  readonly retries?: string | undefined;
  readonly caFile?: string | undefined;
  readonly verbose?: boolean | undefined;
}

export interface Target {
  /** The profile, unless the instance came from --url / SVC_URL alone. */
  readonly profile?: Profile;
  readonly instanceUrl: string;
  /** Account prefix for this target's secrets in the credential store. */
  readonly key: string;
  /** A name for messages: the profile name, or the URL. */
  readonly label: string;
  /**
   * Whether the keychain's secrets under `key` are this instance's (see secretsFit); always for a URL alone.
   * The plain file's always are (it can always be rewritten when a profile moves), and is read only after a
   * login chose it (--insecure-storage).
   */
  readonly storedSecrets: boolean;
}

export interface Connection {
  readonly target: Target;
  readonly profiles: ProfileStore;
  readonly token?: ResolvedToken;
  readonly keychainProblem?: string;
  readonly client: HttpClient;
  /** A browser sign-in's tokens as they stand now (renewed by the client as needed). */
  readonly oauth?: { grant(): OAuthGrant; current(): Promise<string> };
}

/** An instance URL as the client sends to it (parseInstanceUrl's form); one it refuses stays as given, for the client to refuse. */
function normalInstanceUrl(url: string): string {
  try {
    return parseInstanceUrl(url).instance;
  } catch {
    return url.replace(/\/+$/, '');
  }
}

/** Finds the instance from flags, environment and the current profile. */
export function resolveTarget(opts: ConnectionOptions, deps: Deps, profiles: ProfileStore): Target {
  // An empty variable is an unset one (as for SVC_TOKEN and SVC_TOKEN_FILE); an empty flag is a mistake.
  if (opts.url === '') throw new UsageError('--url is given an empty value (an unset variable?); give the instance URL, or leave --url out');
  if (opts.profile === '') throw new UsageError('--profile is given an empty value (an unset variable?); give a profile name, or leave --profile out');
  const url = opts.url ?? (deps.env.SVC_URL || undefined);
  const name = opts.profile ?? (url ? undefined : (deps.env.SVC_PROFILE || profiles.current()));
  if (name !== undefined) {
    const profile = profiles.get(name);
    if (!profile) {
      const known = profiles.list().map((p) => p.name);
      const add = validProfileName(name) ? `, or add it with 'svc profile add ${name} --url URL'` : '';
      throw new UsageError(`no profile '${shown(name)}'${didYouMean(name, known)} (see 'svc profile list'${add})`);
    }
    // A profile's token goes to the profile's instance only: a URL beside it (a stale SVC_URL in the shell,
    // or --url with --profile) that names another instance is refused, never sent the profile's secrets.
    if (url !== undefined && normalInstanceUrl(url) !== normalInstanceUrl(profile.url)) {
      const where = opts.url !== undefined ? '--url' : 'SVC_URL';
      const fix = opts.url !== undefined ? 'drop --url to use the profile, or --profile to use the URL' : 'unset SVC_URL to use the profile, or drop --profile to use the URL';
      throw new UsageError(`--profile ${shown(name)} is ${shown(profile.url)}, and ${where} names ${shown(url)}, another instance: ${fix}`);
    }
    return { profile, instanceUrl: profile.url, key: `profile:${profile.name}`, label: profile.name, storedSecrets: secretsFit(profile) };
  }
  if (url) {
    // One instance, one key, however it is spelt (trailing slash, case of the host, default port), so a
    // token stored by `svc --url … login --insecure-storage` is found by the next `svc --url …`.
    const instanceUrl = normalInstanceUrl(url);
    return { instanceUrl, key: `url:${instanceUrl}`, label: url, storedSecrets: true };
  }
  throw new UsageError("no instance chosen: add one with 'svc profile add NAME --url URL' (or run 'svc sandbox start'), or pass --url or set SVC_URL");
}

/**
 * The keychain of these deps: a test's own, or the OS keychain under the
 * service name `svc` (or SVC_KEYCHAIN_SERVICE, which keeps a throwaway setup
 * such as the demo apart from the user's own secrets).
 */
export async function keychainOf(deps: Deps): Promise<CredentialStore> {
  if (deps.keychain) return deps.keychain();
  const service = deps.env.SVC_KEYCHAIN_SERVICE || undefined;
  return (await import('../auth/keychain.js')).createKeychainStore(service ? { service } : {});
}

/** The plain-file store of each run (its deps). */
const plainStores = new WeakMap<Deps, Promise<CredentialStore>>();

/**
 * The plain-file store, when the target's profile opted in to it (or, for an instance named by URL alone,
 * when a login there did); without a target, the store itself (`svc login --insecure-storage` opts in).
 * One per run (its deps), so that its warning comes once per command.
 */
export async function plainStoreOf(deps: Deps, target?: Target): Promise<CredentialStore | undefined> {
  // A profile remembers the opt-in; an instance named by --url alone has no profile, and its plain-file
  // entry can only have been written by a login with --insecure-storage, so it is read back too.
  if (target?.profile && !target.profile.insecureStorage) return undefined;
  let store = plainStores.get(deps);
  if (!store) {
    store = import('../auth/plain-file.js').then((m) => m.createPlainFileStore(deps.configDir, (line) => deps.stderr.write(`svc: ${line}\n`)));
    plainStores.set(deps, store);
  }
  return store;
}

/** --timeout in whole milliseconds (undici refuses a fractional timeout: --timeout 1.5ms is 2 ms); 30 s by default. */
function timeoutOf(opts: ConnectionOptions): number {
  return opts.timeout ? Math.ceil(parseDuration(opts.timeout, '--timeout', MAX_TIMER_MS)) : 30_000;
}

/** The HTTP client options from the global flags, for a target and (maybe) a token. */
export function clientOptions(opts: ConnectionOptions, deps: Deps, target: Target, token: string | undefined) {
  const timeoutMs = timeoutOf(opts);
  const retries = opts.retries === undefined ? 3 : parseRetries(opts.retries);
  const debug = (deps.env.SVC_DEBUG ?? '').split(',');
  const verbose = opts.verbose === true || debug.includes('http');
  return {
    instanceUrl: target.instanceUrl,
    token,
    userAgent: `svc/${version}`,
    timeoutMs,
    deadlineMs: timeoutMs * (retries + 1) + 10_000,
    retry: { retries },
    caFile: opts.caFile ?? target.profile?.caFile,
    // --verbose adds http to what SVC_DEBUG asks (SVC_DEBUG=1 beside it logged less than --verbose alone).
    env: verbose && !debug.includes('http') ? { ...deps.env, SVC_DEBUG: [...debug.filter(Boolean), 'http'].join(',') } : deps.env,
    log: verbose ? (line: string) => void deps.stderr.write(`${line}\n`) : undefined,
    // On a terminal, a long wait (a Retry-After of seconds) is said, so svc never sits silent; never in a pipe or cron.
    notice: deps.stderr.isTTY ? (line: string) => void deps.stderr.write(`svc: ${line}\n`) : undefined,
  };
}

/**
 * Resolves target and token and builds the client. With `needToken`, a missing
 * token is exit 4 with the way to sign in.
 */
export async function connect(
  opts: ConnectionOptions,
  deps: Deps,
  needs: { token: boolean },
  resolved?: { readonly profiles: ProfileStore; readonly target: Target },
): Promise<Connection> {
  const [{ resolveToken }, { createHttpClient }, profiles] = await Promise.all([
    import('../auth/chain.js'),
    import('../http/client.js'),
    resolved?.profiles ?? import('../config/profiles.js').then((m) => m.openProfiles(deps.configDir)),
  ]);
  const target = resolved?.target ?? resolveTarget(opts, deps, profiles);
  const chain: ChainResult = await resolveToken({
    env: deps.env,
    tokenFile: opts.tokenFile,
    key: target.key,
    // Opened only if the chain gets that far: with SVC_TOKEN or a token file, no store module loads. The keychain
    // not when what it holds under the profile's name is another instance's, nor when the profile's last login
    // chose the plain file (what the keychain holds is older).
    ...(target.storedSecrets && target.profile?.insecureStorage !== true ? { keychain: () => keychainOf(deps) } : {}),
    plain: () => plainStoreOf(deps, target),
    warn: (m) => deps.stderr.write(`svc: ${m}\n`),
    waitMs: timeoutOf(opts),
  });
  if (needs.token && !chain.token) {
    const why = chain.keychainProblem ? ` (the keychain could not be read: ${chain.keychainProblem})` : '';
    throw new AuthError(`not signed in to ${shown(target.label)}${why}: run 'svc login', or set SVC_TOKEN or SVC_TOKEN_FILE`);
  }
  const token = chain.token;
  let client: HttpClient;
  let oauthState: Connection['oauth'];
  if (token?.oauth) {
    // A browser sign-in: the access token is renewed through the same client (token requests carry no bearer).
    const { oauthCredentialFor } = await import('./oauth-credential.js');
    const oauth = { ...token, oauth: token.oauth };
    let credential: (BearerCredential & { grant(): OAuthGrant }) | undefined;
    client = createHttpClient({
      ...clientOptions(opts, deps, target, undefined),
      credential: { current: () => credential!.current(), renew: (t) => credential!.renew(t) },
    });
    const openStore = async (): Promise<CredentialStore> =>
      (token.source === 'keychain' ? await keychainOf(deps) : await plainStoreOf(deps, target)) ?? Promise.reject(new Error('the plain-file store is off for this target'));
    credential = oauthCredentialFor(deps, target, oauth, client, openStore, timeoutOf(opts));
    oauthState = credential;
  } else {
    const given = chain.token && ['env', 'flag', 'token file'].includes(chain.token.source) ? chain.token : undefined;
    client = createHttpClient({ ...clientOptions(opts, deps, target, chain.token?.token), ...(given ? { refusedTokenFix: fixFor(given, target) } : {}) });
  }
  return {
    target,
    profiles,
    client,
    ...(chain.token ? { token: chain.token } : {}),
    ...(chain.keychainProblem ? { keychainProblem: chain.keychainProblem } : {}),
    ...(oauthState ? { oauth: oauthState } : {}),
  };
}

/**
 * The bodies of `svc login` and `svc logout`. The token is stored in the
 * keychain (or, when asked with --insecure-storage, a 0600 file); svc checks
 * the store before signing in, so it never gets a token it cannot keep, and
 * never falls back to plain text on its own.
 */
import { connectCmd } from '../legacy.js';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { createPlainFileStore } from '../../auth/plain-file.js';
import { accountName, KeychainUnavailableError, type CredentialStore } from '../../auth/store.js';
import { openProfiles } from '../../config/profiles.js';
import { AuthError, SvcError, UsageError } from '../../errors.js';
import { createHttpClient } from '../../http/client.js';
import { HttpStatusError } from '../../http/errors.js';
import { parseDuration } from '../../util/duration.js';
import { clientOptions, connect, keychainOf, resolveTarget, type ConnectionOptions, type Target } from '../connection.js';
import { emit } from '../legacy.js';
import type { Deps } from '../deps.js';
import { ask, canPrompt, readAllStdin } from '../prompt.js';
import type { LoginFlags } from './login.js';

interface TokenObject {
  token: string;
  user: number;
  application: number | null;
  expdate: number | null;
  identifier: string;
}

/** A stable identifier for a URL-only target: this machine and the URL. */
function urlIdentifier(url: string): string {
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '').slice(0, 40) || 'host';
  return `svc-${host}-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`;
}

/** The store the token will go to, checked to work before anything is sent. */
async function chooseStore(deps: Deps, flags: LoginFlags): Promise<CredentialStore> {
  if (flags.insecureStorage) return createPlainFileStore(deps.configDir, (m) => deps.stderr.write(`svc: ${m}\n`));
  const keychain = await keychainOf(deps);
  const probe = accountName(`probe:${process.pid}`, 'token');
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

interface LoginInputs {
  user: string;
  password: string;
  appsecret: string;
  /** The secret was typed or piped in now (so it is worth keeping). */
  appsecretIsNew: boolean;
}

async function gatherInputs(deps: Deps, flags: LoginFlags, store: CredentialStore, target: Target): Promise<LoginInputs> {
  if (flags.passwordStdin && flags.appsecretStdin) {
    throw new UsageError('--password-stdin and --appsecret-stdin cannot both read stdin; give the secret in SVC_APPSECRET');
  }
  const tty = canPrompt(deps);
  const user = flags.user ?? (tty ? await ask(deps, 'user name or e-mail') : need('a user name', 'pass --user NAME'));
  if (!user) throw new UsageError('the user name is empty');
  const password = flags.passwordStdin
    ? await readAllStdin(deps)
    : tty
      ? await ask(deps, `password for ${user}`, { hidden: true })
      : need('a password', 'pipe it in with --password-stdin');
  if (!password) throw new UsageError('the password is empty');
  const fromEnv = deps.env.SVC_APPSECRET;
  const fromStdin = flags.appsecretStdin ? await readAllStdin(deps) : undefined;
  const stored = fromEnv || fromStdin ? undefined : await store.get(accountName(target.key, 'appsecret'));
  const typed = fromEnv || fromStdin || stored ? undefined : tty ? await ask(deps, 'application secret', { hidden: true }) : undefined;
  const appsecret = fromEnv || fromStdin || stored || typed;
  if (!appsecret) need('the application secret', 'set SVC_APPSECRET, or pass --appsecret-stdin');
  return { user, password, appsecret, appsecretIsNew: Boolean(fromStdin || typed) };
}

function isOtpRequest(err: unknown): boolean {
  return err instanceof HttpStatusError && err.status === 401 && /one-time code/i.test(err.serviceText) && /needs|required/i.test(err.serviceText);
}

async function requestToken(cmd: Command, deps: Deps, target: Target, form: Record<string, string>): Promise<TokenObject> {
  const client = createHttpClient(clientOptions(cmd.optsWithGlobals<ConnectionOptions>(), deps, target, undefined));
  try {
    const res = await client.request({ method: 'POST', root: 'auth', path: '/login', form, auth: false });
    return await res.json<TokenObject>();
  } finally {
    await client.close();
  }
}

/** `svc login`. */
export async function runLogin(cmd: Command, deps: Deps, flags: LoginFlags): Promise<void> {
  const opts = cmd.optsWithGlobals<ConnectionOptions & { output?: string }>();
  const profiles = await openProfiles(deps.configDir);
  const target = resolveTarget(opts, deps, profiles);
  const expdate = flags.expires ? Math.floor((deps.now() + parseDuration(flags.expires, '--expires')) / 1000) : undefined;
  const store = await chooseStore(deps, flags);
  const inputs = await gatherInputs(deps, flags, store, target);
  const form: Record<string, string> = {
    name: inputs.user,
    password: inputs.password,
    identifier: target.profile?.identifier ?? urlIdentifier(target.instanceUrl),
    appsecret: inputs.appsecret,
  };
  const otp = flags.otp ?? deps.env.SVC_OTP;
  if (otp) form.otp = otp;
  if (expdate !== undefined) form.expdate = String(expdate);
  let token: TokenObject;
  try {
    token = await requestToken(cmd, deps, target, form);
  } catch (err) {
    if (!isOtpRequest(err) || otp) throw loginError(err);
    if (!canPrompt(deps)) throw new AuthError('this account uses two-factor authentication: pass --otp CODE (or set SVC_OTP) with the code from its authenticator');
    form.otp = await ask(deps, 'one-time code');
    token = await requestToken(cmd, deps, target, form).catch((e: unknown) => Promise.reject(loginError(e)));
  }
  await store.set(accountName(target.key, 'token'), token.token);
  if (inputs.appsecretIsNew) await store.set(accountName(target.key, 'appsecret'), inputs.appsecret);
  if (target.profile) {
    profiles.save({ ...target.profile, user: inputs.user, insecureStorage: flags.insecureStorage === true, tokenExpires: token.expdate ?? undefined });
  }
  const expires = token.expdate ? new Date(token.expdate * 1000).toISOString().slice(0, 10) : 'never';
  deps.stderr.write(`signed in to ${target.label} as ${inputs.user} (token in the ${store.kind}, expires ${expires})\n`);
  // Data on stdout only when asked for with -o: login's news is for the person (stderr).
  if (opts.output !== undefined) {
    const value = { target: target.label, url: target.instanceUrl, user: inputs.user, storage: store.kind, expdate: token.expdate };
    await emit(cmd, deps, () => ({ kind: 'object', value, details: Object.entries(value).map(([k, v]) => [k, String(v)] as [string, string]) }));
  }
}

function loginError(err: unknown): unknown {
  if (err instanceof HttpStatusError && err.status === 401) return new AuthError(`login failed: ${err.serviceText}`);
  return err;
}

/** `svc logout`. */
export async function runLogout(cmd: Command, deps: Deps): Promise<void> {
  const conn = await connectCmd(cmd, deps, { token: false });
  try {
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
  } finally {
    await conn.client.close();
  }
}

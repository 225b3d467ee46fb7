/**
 * Each sandbox registers a profile of its own, as kind and minikube give each
 * cluster a kubectl context: the sandbox of the default data dir is the
 * profile `sandbox`, one started with another `--data-dir` is
 * `sandbox-<that dir's name>-<hash>`, so starting a second sandbox never takes the
 * first one's profile (and token) away. The profile holds the instance URL
 * (and CA file under --https), becomes current when no profile is, and the
 * svc-cli application and client secrets go to the keychain for `svc login`,
 * best effort (never to a plain file). When a sandbox comes back at another
 * address (another port), its profile follows it, keeping the token of
 * that data dir's tenant; with a tenant seeded afresh (`svc sandbox reset`),
 * or when the profile was not this data dir's sandbox's, it drops the token
 * it kept, which the sandbox would refuse: stderr says so. A user's own
 * profile of that name pointing at a real instance is left alone.
 */
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { accountName, type CredentialStore } from '../../auth/store.js';
import { isLoopback, parseInstanceUrl } from '../../http/urls.js';
import { keychainOf } from '../../cli/connection.js';
import type { Deps } from '../../cli/deps.js';
import type { Profile } from '../../config/profiles.js';
import { forgetSecrets } from '../profile/secrets.js';
import { resolveDataDir } from './data-dir.js';
import { DEMO_USER, type SandboxInfo } from './info.js';

/** The name of the profile the sandbox of the default data dir registers. */
export const SANDBOX_PROFILE = 'sandbox';

/**
 * The profile of the sandbox in `dataDir`: `sandbox` for the default data dir
 * ($SVC_SANDBOX_DIR, else ~/.local/share/svc/sandbox), else
 * `sandbox-<name>-<hash>`: the data dir's name (its parent's when it is
 * itself called `sandbox`) and four hex digits of its path, so that two
 * `data` folders in two projects never share a profile.
 */
export function sandboxProfileName(dataDir: string, env: Readonly<Record<string, string | undefined>>): string {
  if (dataDir === resolveDataDir(undefined, env)) return SANDBOX_PROFILE;
  const own = basename(dataDir);
  const name = (own === SANDBOX_PROFILE ? basename(dirname(dataDir)) : own)
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[-_.]+/, '')
    .slice(0, 32)
    .replace(/[-_.]+$/, '');
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 4);
  return `${SANDBOX_PROFILE}-${name ? `${name}-` : ''}${hash}`;
}

function pointsAtLoopback(url: string): boolean {
  try {
    return isLoopback(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The same instance, however the two URLs are spelt. */
function sameInstance(a: string, b: string): boolean {
  try {
    return parseInstanceUrl(a).instance === parseInstanceUrl(b).instance;
  } catch {
    return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
  }
}

/** The keychain, or undefined when there is no usable one (the sandbox's use of it is best effort). */
async function keychainIfAny(deps: Deps): Promise<CredentialStore | undefined> {
  try {
    return await keychainOf(deps);
  } catch {
    return undefined;
  }
}

/** Keeps the application and OAuth client secrets in the keychain; silently nothing when there is no usable keychain. */
async function storeSecrets(keychain: CredentialStore | undefined, name: string, appsecret: string, clientSecret: string | undefined): Promise<void> {
  try {
    await keychain?.set(accountName(`profile:${name}`, 'appsecret'), appsecret);
    if (clientSecret) await keychain?.set(accountName(`profile:${name}`, 'clientsecret'), clientSecret);
  } catch {
    // Best effort: without a keychain, `svc login` asks for the secret (or reads SVC_APPSECRET, SVC_CLIENT_SECRET).
  }
}

/** Whether the keychain holds another application secret for the profile: the tenant was seeded afresh since. */
async function reseeded(keychain: CredentialStore | undefined, name: string, appsecret: string): Promise<boolean> {
  try {
    const kept = await keychain?.get(accountName(`profile:${name}`, 'appsecret'));
    return kept !== undefined && kept !== appsecret;
  } catch {
    return false;
  }
}

/**
 * What changed for the profile: `moved` when its sandbox answers at another address, `stale` (why) when
 * the token it kept no longer fits. A token issued by this data dir's tenant still fits it at a new port
 * (the profile records the data dir that registered it); one from anywhere else, or from a tenant seeded
 * afresh since, does not.
 */
async function changeOf(
  existing: Profile | undefined,
  keychain: CredentialStore | undefined,
  name: string,
  dataDir: string,
  info: Pick<SandboxInfo, 'instanceUrl' | 'appsecret'>,
): Promise<{ moved?: string; stale?: string }> {
  if (!existing || !info.instanceUrl) return {};
  const moved = sameInstance(existing.url, info.instanceUrl) ? undefined : `profile '${name}' now points at ${info.instanceUrl} (was ${existing.url})`;
  if (await reseeded(keychain, name, info.appsecret)) return { stale: `${moved ? `${moved}; ` : ''}the sandbox of profile '${name}' has a new tenant (new credentials)` };
  if (moved && existing.sandboxDir !== dataDir) return { stale: moved };
  return moved ? { moved } : {};
}

/**
 * Saves the profile of a running sandbox (sandboxProfileName). Resolves to
 * its name when the profile points at it; undefined (after a warning through
 * `note`) when it could not be saved or belongs to another instance. Lines
 * for people (what changed, warnings) go through `note`.
 */
export async function registerSandboxProfile(
  deps: Deps,
  dataDir: string,
  info: Pick<SandboxInfo, 'instanceUrl' | 'caFile' | 'appsecret'> & Partial<Pick<SandboxInfo, 'clientId' | 'clientSecret'>>,
  note: (line: string) => void,
): Promise<string | undefined> {
  if (!info.instanceUrl) return undefined;
  const name = sandboxProfileName(dataDir, deps.env);
  const keychain = await keychainIfAny(deps);
  try {
    const { openProfiles } = await import('../../config/profiles.js');
    const profiles = await openProfiles(deps.configDir);
    const existing = profiles.get(name);
    if (existing && !pointsAtLoopback(existing.url)) {
      note(`svc: warning: profile '${name}' points at ${existing.url}, so it was left unchanged; remove it with 'svc profile remove ${name}' to let the sandbox register itself`);
      return undefined;
    }
    const { moved, stale } = await changeOf(existing, keychain, name, dataDir, info);
    let leftOver = false;
    if (moved) note(moved);
    if (stale && existing) {
      // Its token was issued by another sandbox (or tenant): it would be refused, so it goes, as with `svc profile add`.
      const { removed, warnings } = await forgetSecrets(deps, existing);
      leftOver = warnings.length > 0;
      const signedIn = removed.includes('token') || existing.user !== undefined || existing.tokenExpires !== undefined;
      note(`${stale}${signedIn ? '; the token it kept was for the old one and was removed' : ''}`);
      warnings.forEach(note);
    }
    profiles.save({
      name,
      url: info.instanceUrl,
      caFile: info.caFile,
      ...(info.clientId ? { clientId: info.clientId } : {}),
      ...(stale ? { user: undefined, tokenExpires: undefined } : {}),
      sandboxDir: dataDir,
      // The secrets stored below are this instance's; while the old ones may be left in a keychain that could not
      // be reached, none counts as this instance's (a login stores fresh ones).
      // After a move that kept the token, secrets that did not fit before (another instance's) still do not.
      keychainUrl: leftOver || (moved && existing && existing.keychainUrl !== undefined && existing.keychainUrl !== existing.url) ? '' : info.instanceUrl,
    });
    const current = profiles.current();
    if (current === undefined || profiles.get(current) === undefined) profiles.use(name);
  } catch (err) {
    note(`svc: warning: the '${name}' profile could not be saved in ${deps.configDir} (${(err as Error).message}); use --url ${info.instanceUrl} instead`);
    return undefined;
  }
  await storeSecrets(keychain, name, info.appsecret, info.clientSecret);
  return name;
}

/** The line that tells how to sign in to the sandbox through its profile. */
export function profileHint(name: string = SANDBOX_PROFILE): string {
  return `profile '${name}' points at it: svc login --profile ${name} --user ${DEMO_USER}\n  or sign in with a browser: svc login --web --profile ${name}`;
}

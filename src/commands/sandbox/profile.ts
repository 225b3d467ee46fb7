/**
 * The sandbox registers itself as the profile `sandbox`: its instance URL
 * (and CA file under --https) in the config, current when no profile is, and
 * the svc-cli application secret in the keychain for `svc login`, best effort
 * (never in a plain file). A user's own `sandbox` profile pointing at a real
 * instance is left alone.
 */
import { accountName } from '../../auth/store.js';
import { isLoopback } from '../../http/urls.js';
import { keychainOf } from '../../cli/connection.js';
import type { Deps } from '../../cli/deps.js';
import { DEMO_USER, type SandboxInfo } from './info.js';

/** The name of the profile the sandbox registers. */
export const SANDBOX_PROFILE = 'sandbox';

function pointsAtLoopback(url: string): boolean {
  try {
    return isLoopback(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Keeps the application and OAuth client secrets in the keychain; silently nothing when there is no usable keychain. */
async function storeSecrets(deps: Deps, appsecret: string, clientSecret: string | undefined): Promise<void> {
  try {
    const keychain = await keychainOf(deps);
    await keychain.set(accountName(`profile:${SANDBOX_PROFILE}`, 'appsecret'), appsecret);
    if (clientSecret) await keychain.set(accountName(`profile:${SANDBOX_PROFILE}`, 'clientsecret'), clientSecret);
  } catch {
    // Best effort: without a keychain, `svc login` asks for the secret (or reads SVC_APPSECRET, SVC_CLIENT_SECRET).
  }
}

/**
 * Saves the `sandbox` profile for a running sandbox. Resolves to true when
 * the profile points at it; false (after a warning through `warn`) when it
 * could not be saved or belongs to another instance.
 */
export async function registerSandboxProfile(
  deps: Deps,
  info: Pick<SandboxInfo, 'instanceUrl' | 'caFile' | 'appsecret'> & Partial<Pick<SandboxInfo, 'clientId' | 'clientSecret'>>,
  warn: (line: string) => void,
): Promise<boolean> {
  if (!info.instanceUrl) return false;
  try {
    const { openProfiles } = await import('../../config/profiles.js');
    const profiles = await openProfiles(deps.configDir);
    const existing = profiles.get(SANDBOX_PROFILE);
    if (existing && !pointsAtLoopback(existing.url)) {
      warn(`svc: warning: profile '${SANDBOX_PROFILE}' points at ${existing.url}, so it was left unchanged; remove it with 'svc profile remove ${SANDBOX_PROFILE}' to let the sandbox register itself`);
      return false;
    }
    profiles.save({ name: SANDBOX_PROFILE, url: info.instanceUrl, caFile: info.caFile, ...(info.clientId ? { clientId: info.clientId } : {}) });
    const current = profiles.current();
    if (current === undefined || profiles.get(current) === undefined) profiles.use(SANDBOX_PROFILE);
  } catch (err) {
    warn(`svc: warning: the '${SANDBOX_PROFILE}' profile could not be saved in ${deps.configDir} (${(err as Error).message}); use --url ${info.instanceUrl} instead`);
    return false;
  }
  await storeSecrets(deps, info.appsecret, info.clientSecret);
  return true;
}

/** The line that tells how to sign in to the sandbox through its profile. */
export function profileHint(): string {
  return `profile '${SANDBOX_PROFILE}' points at it: svc login --profile ${SANDBOX_PROFILE} --user ${DEMO_USER}\n  or sign in with a browser: svc login --web --profile ${SANDBOX_PROFILE}`;
}

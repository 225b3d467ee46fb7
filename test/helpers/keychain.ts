import { randomBytes } from 'node:crypto';
import { createKeychainStore } from '../../src/auth/keychain.js';

/**
 * Whether a real Secret Service answers here. CI runs the tests inside
 * dbus-run-session with an unlocked gnome-keyring (.ci/run), so there it must.
 */
export async function keychainAvailable(): Promise<boolean> {
  const store = createKeychainStore({ service: 'svc-probe', timeoutMs: 3000 });
  const account = `probe-${randomBytes(4).toString('hex')}`;
  try {
    await store.set(account, 'probe');
    await store.delete(account);
    return true;
  } catch (err) {
    if (process.env.CI) throw new Error(`CI must provide an unlocked Secret Service (see .ci/run): ${(err as Error).message}`);
    return false;
  }
}

/** What a test skipped for want of a keychain says (`ctx.skip(NO_KEYCHAIN)`). */
export const NO_KEYCHAIN = 'needs a Secret Service, and none answers here (CI runs gnome-keyring inside dbus-run-session: .ci/run)';

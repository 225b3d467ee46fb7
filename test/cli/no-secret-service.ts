/**
 * A keychain that fails as the real one does on a machine without a Secret
 * Service (a headless server, a cron job: no D-Bus session): every call
 * throws KeychainUnavailableError with the reason svc's keychain module makes
 * of the library's own D-Bus error. For the in-process runner's `keychain`.
 */
import { keychainFailureReason } from '../../src/auth/keychain.js';
import { KeychainUnavailableError, type CredentialStore } from '../../src/auth/store.js';

/** What @napi-rs/keyring throws when DBUS_SESSION_BUS_ADDRESS is unset (seen on Debian, Node 20). */
export const NO_DBUS_ERROR = 'Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead';

/** The keychain of a machine without a D-Bus session; `calls` counts what svc asked of it. */
export function noSecretService(): { keychain: () => CredentialStore; calls: string[] } {
  const calls: string[] = [];
  const fail = (what: string): never => {
    calls.push(what);
    throw new KeychainUnavailableError(keychainFailureReason(new Error(NO_DBUS_ERROR)));
  };
  const store: CredentialStore = {
    kind: 'keychain',
    get: async (account) => fail(`get ${account}`),
    set: async (account) => fail(`set ${account}`),
    delete: async (account) => fail(`delete ${account}`),
  };
  return { keychain: () => store, calls };
}

/** The environment of a spawned svc on such a machine: no D-Bus session, no display, a home of its own. */
export function headlessEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: home, SVC_CONFIG_DIR: `${home}/config`, ...extra };
}

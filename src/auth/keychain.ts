/**
 * The OS keychain through @napi-rs/keyring (the maintained successor of the
 * archived keytar): macOS Keychain, Windows Credential Manager, and on Linux
 * the Secret Service, pinned explicitly because the library's default falls
 * back to the memory-only kernel keyring. Every call has a timeout, so a hung
 * D-Bus never blocks svc.
 */
import { createRequire } from 'node:module';
import type { AsyncEntry } from '@napi-rs/keyring';
import { KeychainUnavailableError, type CredentialStore } from './store.js';

export const KEYCHAIN_SERVICE = 'svc';
const DEFAULT_TIMEOUT_MS = 3000;

type EntryClass = typeof AsyncEntry;

let entryClassLoaded: EntryClass | undefined;

/**
 * The keyring's Entry class. Required, not imported: the package is CommonJS,
 * and importing it adds the ES module loader's wrapping (~3–5 ms) to the
 * dlopen of its native binary.
 */
async function entryClass(): Promise<EntryClass> {
  try {
    return (entryClassLoaded ??= (createRequire(import.meta.url)('@napi-rs/keyring') as typeof import('@napi-rs/keyring')).AsyncEntry);
  } catch (err) {
    throw new KeychainUnavailableError(`the keyring module did not load (${(err as Error).message})`);
  }
}

/**
 * Why a keychain call failed, in a few words for a one-line message: the
 * usual D-Bus failures on Linux (no session bus, as on a headless server or
 * in cron; a session without a Secret Service) get a short reason and the
 * fix, anything else its first line, without the library's prefix.
 */
export function keychainFailureReason(err: unknown): string {
  const e = err as Error & { name?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'the keychain did not answer in time';
  const first = (typeof e?.message === 'string' ? e.message : String(err)).split('\n')[0] ?? '';
  if (/DBUS_SESSION_BUS_ADDRESS|autolaunch/i.test(first)) return 'no D-Bus session, DBUS_SESSION_BUS_ADDRESS is unset';
  const socket = /Failed to connect to socket ([^:]+)/i.exec(first);
  if (socket) return `no D-Bus session at ${socket[1]}`;
  if (/org\.freedesktop\.secrets/.test(first)) return 'no Secret Service (such as gnome-keyring) on the D-Bus session';
  const text = first.replace(/^Platform failure:\s*/i, '').replace(/^DBus error:\s*/i, 'D-Bus: ');
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

/** A keychain store; calls fail with KeychainUnavailableError when the keychain cannot be used. */
export function createKeychainStore(opts: { service?: string; timeoutMs?: number } = {}): CredentialStore {
  const service = opts.service ?? KEYCHAIN_SERVICE;
  const timeout = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const entry = async (account: string): Promise<AsyncEntry> => {
    const Entry = await entryClass();
    try {
      return new Entry(service, account, { linux: { store: 'secret-service' } });
    } catch (err) {
      throw new KeychainUnavailableError(keychainFailureReason(err));
    }
  };
  const guard = async <T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await run(AbortSignal.timeout(timeout));
    } catch (err) {
      throw new KeychainUnavailableError(keychainFailureReason(err));
    }
  };
  return {
    kind: 'keychain',
    async get(account) {
      const e = await entry(account);
      return (await guard((signal) => e.getPassword(signal))) ?? undefined;
    },
    async set(account, secret) {
      const e = await entry(account);
      await guard((signal) => e.setPassword(secret, signal));
      // A locked keyring can swallow a write and read back null: check it landed.
      const back = await guard((signal) => e.getPassword(signal));
      if (back !== secret) throw new KeychainUnavailableError('the keychain did not keep the secret (is it locked?)');
    },
    async delete(account) {
      const e = await entry(account);
      return guard((signal) => e.deleteCredential(signal));
    },
  };
}

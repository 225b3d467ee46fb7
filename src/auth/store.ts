/**
 * Where svc keeps secrets (tokens, application secrets): one small interface,
 * implemented by the OS keychain and by an opt-in plain file.
 */

export interface CredentialStore {
  /** "keychain" or "plain file", for messages and `svc auth status`. */
  readonly kind: 'keychain' | 'plain file';
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  /** True when something was removed. */
  delete(account: string): Promise<boolean>;
}

/** The keychain cannot be used here (no Secret Service, locked, or it did not answer in time). */
export class KeychainUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`no usable OS keychain: ${reason}`);
    this.name = 'KeychainUnavailableError';
  }
}

/** The kinds of secret svc keeps for a target. */
export const SECRET_KINDS = ['token', 'appsecret', 'clientsecret'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** Account names under the `svc` service: one per profile and kind of secret. */
export function accountName(profileKey: string, what: SecretKind): string {
  return `${profileKey}/${what}`;
}

/** Whether a profile's keychain secrets are for the instance it points at; apart from profiles.ts, which loads more. */
import type { Profile } from './profiles.js';

/**
 * Whether the secrets the keychain holds under the profile's name are for the
 * instance it points at now. A new URL removes them, but a keychain that
 * cannot be reached at that moment keeps them, and a profile removed then and
 * added again for another instance has the same name: either way they are
 * the old instance's, and must never be sent to the new one. (The plain
 * file can always be rewritten, so it never keeps another instance's.) A
 * profile saved before svc kept `keychainUrl` counts as fitting while it
 * keeps the user or token expiry of its login (a new URL clears both).
 */
export function secretsFit(profile: Profile): boolean {
  if (profile.keychainUrl !== undefined) return profile.keychainUrl === profile.url;
  return profile.user !== undefined || profile.tokenExpires !== undefined;
}

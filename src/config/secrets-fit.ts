/** Whether a profile's stored secrets are for the instance it points at; apart from profiles.ts, which loads more. */
import type { Profile } from './profiles.js';

/**
 * Whether the secrets stored under the profile's name are for the instance it
 * points at now. A new URL removes them, but a keychain that cannot be
 * reached at that moment keeps them, and a profile removed then and added
 * again for another instance has the same name: either way they are the old
 * instance's, and must never be sent to the new one. A profile saved before
 * svc kept `secretsUrl` counts as fitting while it keeps the user or token
 * expiry of its login (a new URL clears both).
 */
export function secretsFit(profile: Profile): boolean {
  if (profile.secretsUrl !== undefined) return profile.secretsUrl === profile.url;
  return profile.user !== undefined || profile.tokenExpires !== undefined;
}

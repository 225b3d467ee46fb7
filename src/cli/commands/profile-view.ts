/**
 * `svc profile list` and `svc profile show`: the profiles as views. A token is
 * never shown, only whether and where one is stored.
 */
import type { Command } from 'commander';
import { openProfiles, type Profile, type ProfileStore } from '../../config/profiles.js';
import { UsageError } from '../../errors.js';
import type { ObjectView, RecordsView } from '../../output/view.js';
import { didYouMean } from '../../util/suggest.js';
import type { Deps } from '../deps.js';
import { findStoredToken, type StoredToken } from './profile-secrets.js';

const yesNo = (v: boolean): string => (v ? 'yes' : 'no');

/** A Unix time as an ISO date, with "expired" when it has passed. */
export function expiryLabel(seconds: number, nowMs: number): string {
  const iso = new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
  return seconds * 1000 <= nowMs ? `${iso} (expired)` : iso;
}

/** `svc profile list`: one row per profile; the current one marked with *. */
export async function profileListView(deps: Deps): Promise<RecordsView> {
  const profiles = await openProfiles(deps.configDir);
  const current = profiles.current();
  const rows = profiles.list().map((p) => ({ current: p.name === current, ...p }));
  if (rows.length === 0 && deps.stderr.isTTY) {
    deps.stderr.write("no profiles yet: add one with 'svc profile add NAME --url URL' (or run 'svc sandbox start')\n");
  }
  return {
    kind: 'records',
    columns: [
      { key: 'current', text: (v) => (v ? '*' : '') },
      { key: 'name' },
      { key: 'url' },
      { key: 'user', text: (v) => (typeof v === 'string' ? v : '') },
    ],
    rows,
  };
}

/** The profile a command names, else --profile, $SVC_PROFILE or the current one. */
export function chooseProfile(profiles: ProfileStore, deps: Deps, name: string | undefined, flag: string | undefined): Profile {
  const chosen = name ?? flag ?? deps.env.SVC_PROFILE ?? profiles.current();
  if (chosen === undefined) {
    throw new UsageError("no profile chosen: name one ('svc profile show NAME'), or add one with 'svc profile add NAME --url URL'");
  }
  const profile = profiles.get(chosen);
  if (profile) return profile;
  const known = profiles.list().map((p) => p.name);
  throw new UsageError(`no profile '${chosen}'${didYouMean(chosen, known)} (see 'svc profile list')`);
}

function tokenLabel(stored: StoredToken, name: string): string {
  if (stored.store === 'keychain') return 'stored in the keychain';
  if (stored.store === 'plain file') return 'stored in a plain file (--insecure-storage)';
  if (stored.problem) return `unknown: the keychain could not be read (${stored.problem})`;
  return `none (sign in with 'svc login --profile ${name}')`;
}

/** `svc profile show [NAME]`: the profile's settings, its config file and whether a token is stored. */
export async function profileShowView(self: Command, deps: Deps, name: string | undefined): Promise<ObjectView> {
  const profiles = await openProfiles(deps.configDir);
  const p = chooseProfile(profiles, deps, name, self.optsWithGlobals<{ profile?: string }>().profile);
  const stored = await findStoredToken(deps, p.name, p.insecureStorage === true);
  const value = {
    name: p.name,
    url: p.url,
    identifier: p.identifier,
    current: profiles.current() === p.name,
    insecureStorage: p.insecureStorage === true,
    caFile: p.caFile ?? null,
    user: p.user ?? null,
    tokenStored: stored.store ? true : stored.problem ? null : false,
    ...(stored.store ? { tokenStore: stored.store } : {}),
    tokenExpires: p.tokenExpires ?? null,
    configFile: profiles.path,
  };
  const details: [string, string][] = [
    ['name', p.name],
    ['url', p.url],
    ['current', yesNo(value.current)],
    ['identifier', p.identifier],
  ];
  if (p.user) details.push(['user', p.user]);
  details.push(['token', tokenLabel(stored, p.name)]);
  if (p.tokenExpires !== undefined) details.push(['token expires', expiryLabel(p.tokenExpires, deps.now())]);
  if (p.caFile) details.push(['CA file', p.caFile]);
  details.push(['insecure storage', yesNo(value.insecureStorage)], ['config file', profiles.path]);
  return { kind: 'object', value, details };
}

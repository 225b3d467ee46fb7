/** How `svc profile show` shows a profile: the data below as JSON, labelled lines on a terminal. */
import type { Profile } from '../../../config/profiles.js';
import type { ObjectView } from '../../../output/view.js';
import { expiryLabel } from '../../../util/expiry.js';
import { shownUrl, type StoredToken } from '../secrets.js';

const yesNo = (v: boolean): string => (v ? 'yes' : 'no');

function tokenLabel(stored: StoredToken, name: string): string {
  if (stored.store === 'keychain') return 'stored in the keychain';
  if (stored.store === 'plain file') return 'stored in a plain file (--insecure-storage)';
  if (stored.problem) return `unknown: the keychain could not be read (${stored.problem})`;
  return `none (sign in with 'svc login --profile ${name}')`;
}

/** What the view needs besides the profile: whether it is current, the config file, the token's store, the time. */
export interface ProfileFacts {
  readonly current: boolean;
  readonly configFile: string;
  readonly stored: StoredToken;
  readonly nowMs: number;
}

export function profileView(p: Profile, facts: ProfileFacts): ObjectView {
  const { stored } = facts;
  const value = {
    name: p.name,
    url: shownUrl(p.url),
    identifier: p.identifier,
    current: facts.current,
    insecureStorage: p.insecureStorage === true,
    caFile: p.caFile ?? null,
    clientId: p.clientId ?? null,
    user: p.user ?? null,
    tokenStored: stored.store ? true : stored.problem ? null : false,
    ...(stored.store ? { tokenStore: stored.store } : {}),
    tokenExpires: p.tokenExpires ?? null,
    configFile: facts.configFile,
  };
  const details: [string, string][] = [
    ['name', p.name],
    ['url', value.url],
    ['current', yesNo(value.current)],
    ['identifier', p.identifier],
  ];
  if (p.user) details.push(['user', p.user]);
  details.push(['token', tokenLabel(stored, p.name)]);
  if (p.tokenExpires !== undefined) details.push(['token expires', expiryLabel(p.tokenExpires, facts.nowMs)]);
  if (p.caFile) details.push(['CA file', p.caFile]);
  if (p.clientId) details.push(['OAuth client', p.clientId]);
  details.push(['insecure storage', yesNo(value.insecureStorage)], ['config file', facts.configFile]);
  return { kind: 'object', value, details };
}

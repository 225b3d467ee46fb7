/**
 * Profiles: named instance URLs with their per-machine login identifier,
 * stored with conf in `<config dir>/config.json`. Never a secret: tokens and
 * application secrets live in the credential store.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';
import { didYouMean } from '../util/suggest.js';

export interface Profile {
  readonly name: string;
  /** The instance URL, e.g. https://erp.example.com/acme. */
  readonly url: string;
  /** Stable per profile and machine: the service keeps one token per identifier. */
  readonly identifier: string;
  /** The user opted in to plain-file secrets at login. */
  readonly insecureStorage?: boolean;
  /** Extra CA file to trust for this profile (e.g. the sandbox's --https CA). */
  readonly caFile?: string;
  /** The user name of the last login, shown by `svc auth status`. */
  readonly user?: string;
  /** Expiry (Unix seconds) of the token the last login stored, when it has one. */
  readonly tokenExpires?: number | undefined;
  /**
   * The query member svc sends filters under: `filters` (default, as the
   * vendor's own client does) or `filter` (the schema's name).
   */
  readonly filterMember?: 'filter' | 'filters' | undefined;
}

interface ConfigShape {
  current?: string;
  profiles: Record<string, Omit<Profile, 'name'>>;
}

export interface ProfileStore {
  /** The config file's path. */
  readonly path: string;
  list(): Profile[];
  get(name: string): Profile | undefined;
  /** The profile `svc profile use` chose, if any. */
  current(): string | undefined;
  use(name: string): void;
  /** Adds or updates a profile; keeps its identifier when the URL stays the same. */
  save(profile: Omit<Profile, 'identifier'> & { identifier?: string }): Profile;
  remove(name: string): boolean;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** Checks a profile name: letters, digits, '.', '_' and '-'. */
export function checkProfileName(name: string): void {
  if (!NAME.test(name)) throw new UsageError(`invalid profile name '${name}'; use letters, digits, '.', '_' or '-'`);
}

/** A new login identifier: this machine's name and a random part. */
export function newIdentifier(): string {
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '').slice(0, 40) || 'host';
  return `svc-${host}-${randomBytes(6).toString('hex')}`;
}

/** Opens the profile store in a config directory (conf is loaded only here). */
export async function openProfiles(configDir: string): Promise<ProfileStore> {
  const { default: Conf } = await import('conf');
  const conf = new Conf<ConfigShape>({
    cwd: configDir,
    configName: 'config',
    projectName: 'svc',
    defaults: { profiles: {} },
    configFileMode: 0o600,
  });
  const all = (): Record<string, Omit<Profile, 'name'>> => conf.get('profiles') ?? {};
  const get = (name: string): Profile | undefined => {
    const p = all()[name];
    return p ? { name, ...p } : undefined;
  };
  return {
    path: conf.path,
    list: () => Object.entries(all()).map(([name, p]) => ({ name, ...p })).sort((a, b) => a.name.localeCompare(b.name)),
    get,
    current: () => conf.get('current'),
    use(name) {
      if (!get(name)) throw new UsageError(`no profile '${name}'${didYouMean(name, Object.keys(all()))} (see 'svc profile list')`);
      conf.set('current', name);
    },
    save(profile) {
      checkProfileName(profile.name);
      const before = get(profile.name);
      const identifier = profile.identifier ?? (before && before.url === profile.url ? before.identifier : newIdentifier());
      const { name, ...rest } = { ...before, ...profile, identifier };
      conf.set('profiles', { ...all(), [name]: rest });
      return { name, ...rest };
    },
    remove(name) {
      const profiles = { ...all() };
      if (!(name in profiles)) return false;
      delete profiles[name];
      conf.set('profiles', profiles);
      if (conf.get('current') === name) conf.delete('current');
      return true;
    },
  };
}

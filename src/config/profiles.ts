/**
 * Profiles: named instance URLs with their per-machine login identifier,
 * stored with conf in `<config dir>/config.json`. Never a secret: tokens and
 * application secrets live in the credential store.
 *
 * Reading is a plain JSON read of that file, as conf reads it (every command
 * that talks to the service reads it; conf, with ajv, cost each ~60 ms to
 * load). Writes go through conf, loaded at the first write.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type Conf from 'conf';
import { UsageError } from '../errors.js';
import { checkProfileName } from './profile-name.js';
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
  /** The OAuth application's identifier for `svc login --web` (its secret lives in the credential store). */
  readonly clientId?: string | undefined;
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

export { checkProfileName } from './profile-name.js';

/** A new login identifier: this machine's name and a random part. */
export function newIdentifier(): string {
  // node:os and node:crypto are not in Node's snapshot: loaded here, for a profile being written, not at every read.
  const load = createRequire(import.meta.url);
  const { hostname } = load('node:os') as typeof import('node:os');
  const { randomBytes } = load('node:crypto') as typeof import('node:crypto');
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '').slice(0, 40) || 'host';
  return `svc-${host}-${randomBytes(6).toString('hex')}`;
}

type ConfClass = typeof Conf;

/**
 * Where the build put conf: bundled as CommonJS beside the chunks
 * (scripts/build.mjs), so a write, which is synchronous, can load it then.
 * Undefined when svc runs from its sources (tests), where conf is imported
 * up front instead.
 */
declare const SVC_CONF_BUNDLE: string | undefined;

let confClass: ConfClass | undefined;

function loadConf(): ConfClass {
  if (!confClass) {
    const bundle = typeof SVC_CONF_BUNDLE === 'string' ? SVC_CONF_BUNDLE : 'conf';
    confClass = (createRequire(import.meta.url)(bundle) as { default: ConfClass }).default;
  }
  return confClass;
}

/** The config file's data as conf reads it: JSON, an absent file being empty. */
function readConfig(path: string): Partial<ConfigShape> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`cannot read ${path}: not valid JSON (${(err as Error).message}); fix it, or remove it and add the profiles again`);
  }
  // Own members only: a "__proto__" key in the file is data, never the prototype of what svc reads.
  const own = <T,>(o: unknown, key: string): T | undefined =>
    typeof o === 'object' && o !== null && !Array.isArray(o) && Object.hasOwn(o, key) ? ((o as Record<string, T>)[key] as T) : undefined;
  const profiles = own<Record<string, Omit<Profile, 'name'>>>(data, 'profiles');
  const current = own<unknown>(data, 'current');
  return {
    ...(typeof profiles === 'object' && profiles !== null && !Array.isArray(profiles) ? { profiles: Object.fromEntries(Object.entries(profiles)) } : {}),
    ...(typeof current === 'string' ? { current } : {}),
  };
}

/** Opens the profile store in a config directory (conf loads at the first write). */
export async function openProfiles(configDir: string): Promise<ProfileStore> {
  if (typeof SVC_CONF_BUNDLE !== 'string') confClass ??= (await import('conf')).default;
  const path = resolve(configDir, 'config.json');
  let conf: Conf<ConfigShape> | undefined;
  const writer = (): Conf<ConfigShape> =>
    (conf ??= new (loadConf())<ConfigShape>({
      cwd: configDir,
      configName: 'config',
      projectName: 'svc',
      defaults: { profiles: {} },
      configFileMode: 0o600,
    }));
  const all = (): Record<string, Omit<Profile, 'name'>> => readConfig(path).profiles ?? {};
  const get = (name: string): Profile | undefined => {
    const profiles = all();
    const p = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
    return p ? { name, ...p } : undefined;
  };
  return {
    path,
    list: () => Object.entries(all()).map(([name, p]) => ({ name, ...p })).sort((a, b) => a.name.localeCompare(b.name)),
    get,
    current: () => readConfig(path).current,
    use(name) {
      if (!get(name)) throw new UsageError(`no profile '${name}'${didYouMean(name, Object.keys(all()))} (see 'svc profile list')`);
      writer().set('current', name);
    },
    save(profile) {
      checkProfileName(profile.name);
      const before = get(profile.name);
      const identifier = profile.identifier ?? (before && before.url === profile.url ? before.identifier : newIdentifier());
      const { name, ...rest } = { ...before, ...profile, identifier };
      const c = writer();
      c.set('profiles', { ...(c.get('profiles') ?? {}), [name]: rest });
      return { name, ...rest };
    },
    remove(name) {
      const c = writer();
      const profiles = { ...(c.get('profiles') ?? {}) };
      if (!(name in profiles)) return false;
      delete profiles[name];
      c.set('profiles', profiles);
      if (c.get('current') === name) c.delete('current');
      return true;
    },
  };
}

/**
 * Profiles: named instance URLs with their per-machine login identifier,
 * stored with conf in `<config dir>/config.json`. Never a secret: tokens and
 * application secrets live in the credential store.
 *
 * Reading is a plain JSON read of that file, as conf reads it (every command
 * that talks to the service reads it; conf, with ajv, cost each ~60 ms to
 * load). Writes go through conf, loaded at the first write.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type Conf from 'conf';
import { SvcError, UsageError } from '../errors.js';
import { parseInstanceUrl } from '../http/urls.js';
import { readOwnFile, withoutBom } from './own-file.js';
import { checkProfileName } from './profile-name.js';
import { shown } from '../util/shown.js';
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
  /**
   * The instance the keychain's secrets under the profile's name were stored
   * for (by a login there, or `svc sandbox start`): they are used only while
   * the profile points there. Empty when the keychain may hold another
   * instance's (a plain-file login after a move it could not clean up).
   */
  readonly keychainUrl?: string | undefined;
  /**
   * The data dir of the sandbox that registered this profile (`svc sandbox start`): a token from that
   * sandbox's tenant stays valid when it comes back at another address. Cleared when a user points the
   * profile elsewhere.
   */
  readonly sandboxDir?: string | undefined;
}


interface ConfigShape {
  current?: string;
  profiles: Record<string, Omit<Profile, 'name'>>;
}

export interface ProfileStore {
  /** The config file's path. */
  readonly path: string;
  list(): Profile[];
  /**
   * The profile of this name. One whose URL svc cannot use (a hand edit: javascript:, no path, http:// to
   * another host) is refused naming it and the fix, unless `anyUrl` (the `svc profile` commands that show,
   * fix or remove it).
   */
  get(name: string, opts?: { readonly anyUrl?: boolean }): Profile | undefined;
  /** Whether config.json has an entry of this name, damaged or not. */
  has(name: string): boolean;
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
type LockSync = typeof import('proper-lockfile').lockSync;

/**
 * Where the build put conf: bundled as CommonJS beside the chunks
 * (scripts/build.mjs), so a write, which is synchronous, can load it then.
 * Undefined when svc runs from its sources (tests), where conf is imported
 * up front instead.
 */
declare const SVC_CONF_BUNDLE: string | undefined;

let confClass: ConfClass | undefined;
let lockSync: LockSync | undefined;

function loadConf(): ConfClass {
  if (!confClass) {
    const bundle = typeof SVC_CONF_BUNDLE === 'string' ? SVC_CONF_BUNDLE : 'conf';
    confClass = (createRequire(import.meta.url)(bundle) as { default: ConfClass }).default;
  }
  return confClass;
}

/** proper-lockfile's lockSync: in the conf bundle once built, from node_modules when run from the sources. */
function loadLockSync(): LockSync {
  if (!lockSync) {
    const load = createRequire(import.meta.url);
    lockSync = typeof SVC_CONF_BUNDLE === 'string' ? (load(SVC_CONF_BUNDLE) as { lockSync: LockSync }).lockSync : (load('proper-lockfile') as { lockSync: LockSync }).lockSync;
  }
  return lockSync;
}

/** How long a write waits for another svc's write of the same config (each takes milliseconds). */
const LOCK_WAIT_MS = 10_000;
/** A lock untouched this long is a killed writer's, taken over (a write holds it for milliseconds). */
const LOCK_STALE_MS = 5_000;

/**
 * A lock dated ahead of this machine's clock (a config dir copied from a
 * machine whose clock is ahead, a clock stepped back) would never grow old
 * enough to be taken over: it is a left-over, removed.
 */
function dropFutureLock(lockPath: string): void {
  try {
    const st = statSync(lockPath);
    if (st.isDirectory() && st.mtimeMs > Date.now() + LOCK_STALE_MS) rmSync(lockPath, { recursive: true, force: true });
  } catch {
    // None there, or not ours to judge: proper-lockfile says what it finds.
  }
}

/**
 * Runs a read-modify-write of config.json under a lock every svc process
 * takes (proper-lockfile, as the plain-file store and token renewal lock):
 * without it, two `svc profile add` at once each wrote back the file as they
 * had read it, and one profile was lost. Writes are synchronous (conf's), so
 * the wait is too: a short sleep between tries. Any failure to write is one
 * line naming the file.
 */
function lockedWrite<T>(path: string, work: () => T): T {
  let release: (() => void) | undefined;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const lock = loadLockSync();
    dropFutureLock(`${path}.lock`);
    if (lockIsNotADirectory(`${path}.lock`)) {
      throw new SvcError(`cannot write ${shown(path)}: ${shown(`${path}.lock`)} is not the lock svc makes; remove ${shown(`${path}.lock`)} if no other svc is running`);
    }
    const deadline = Date.now() + LOCK_WAIT_MS;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (;;) {
      try {
        release = lock(path, { realpath: false, stale: LOCK_STALE_MS });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || Date.now() > deadline) throw err;
        Atomics.wait(pause, 0, 0, 10 + Math.floor(Math.random() * 20));
      }
    }
    return work();
  } catch (err) {
    if (err instanceof SvcError) throw err;
    const e = err as NodeJS.ErrnoException;
    const lockPath = `${path}.lock`;
    if (e.code === 'ELOCKED' || ((e.code === 'ENOTDIR' || e.code === 'EEXIST') && lockIsNotADirectory(lockPath))) {
      throw new SvcError(`cannot write ${shown(path)}: ${shown(lockPath)} ${e.code === 'ELOCKED' ? `stayed locked for ${LOCK_WAIT_MS / 1000} s` : 'is not the lock svc makes'}; remove ${shown(lockPath)} if no other svc is running`);
    }
    const why = e instanceof RangeError ? 'its content nests too deep to be written back' : shown(e.code ?? e.message);
    throw new SvcError(`cannot write ${shown(path)} (${why}); check the file and its directory`);
  } finally {
    try {
      release?.();
    } catch {
      // The lock is stale after LOCK_WAIT_MS: the next writer takes it over.
    }
  }
}

/** Whether something other than a directory stands where proper-lockfile makes its lock directory. */
function lockIsNotADirectory(lockPath: string): boolean {
  try {
    return !statSync(lockPath).isDirectory();
  } catch {
    return false;
  }
}

/** Why a profile entry of config.json is not one svc wrote, or undefined when it is. */
function damageOf(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    return `it is ${entry === null ? 'null' : Array.isArray(entry) ? 'a list' : `a ${typeof entry}`}, not an object`;
  }
  const url = (entry as { url?: unknown }).url;
  return typeof url === 'string' && url !== '' ? undefined : 'it has no url';
}

/** A profile entry of config.json that is not one svc wrote. */
export class DamagedProfileError extends UsageError {}

/** The config file's data as conf reads it: JSON, an absent file being empty. */
function readConfig(path: string): Partial<ConfigShape> {
  const fix = "it should be svc's config file: fix it, or move it away and add the profiles again";
  const bytes = readOwnFile(path, (why) => new UsageError(`cannot read ${shown(path)} (${why}); ${fix}`))?.bytes;
  if (bytes === undefined) return {};
  let text: string;
  try {
    // Fatal: a byte that is not UTF-8 would be written back as U+FFFD by the next write, changing a name or URL.
    text = withoutBom(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new UsageError(`cannot read ${shown(path)}: it holds bytes that are not UTF-8; ${fix}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`cannot read ${shown(path)}: not valid JSON (${shown((err as Error).message)}); fix it, or remove it and add the profiles again`);
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const what = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : `a ${typeof v}`);
  // JSON that is not svc's object: never taken for "no profiles" (the next write would spread it into profiles).
  if (!isObject(data)) throw new UsageError(`cannot read ${shown(path)}: it is ${what(data)}, not the JSON object svc writes; ${fix}`);
  // Own members only: a "__proto__" key in the file is data, never the prototype of what svc reads.
  const own = <T,>(o: Record<string, unknown>, key: string): T | undefined => (Object.hasOwn(o, key) ? (o[key] as T) : undefined);
  const profiles = own<unknown>(data, 'profiles');
  if (profiles !== undefined && !isObject(profiles)) throw new UsageError(`cannot read ${shown(path)}: its "profiles" is ${what(profiles)}, not an object; ${fix}`);
  const current = own<unknown>(data, 'current');
  return {
    ...(profiles !== undefined ? { profiles: Object.fromEntries(Object.entries(profiles)) as Record<string, Omit<Profile, 'name'>> } : {}),
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
      // As readConfig reads it: a leading byte-order mark is not JSON (it is not written back).
      deserialize: (text: string) => JSON.parse(withoutBom(text)) as ConfigShape,
    }));
  const all = (): Record<string, Omit<Profile, 'name'>> => readConfig(path).profiles ?? {};
  /** The entry as a profile; a damaged one (a hand edit) is refused, naming it and the fix. */
  const profileOf = (name: string, entry: unknown): Profile => {
    const damage = damageOf(entry);
    if (damage) throw new DamagedProfileError(`profile '${shown(name)}' in ${shown(path)} is damaged (${damage}); remove it with 'svc profile remove ${shown(name)}' and add it again`);
    return { name, ...(entry as Omit<Profile, 'name'>) };
  };
  const get = (name: string, opts: { readonly anyUrl?: boolean } = {}): Profile | undefined => {
    const profiles = all();
    if (!Object.hasOwn(profiles, name)) return undefined;
    const profile = profileOf(name, profiles[name]);
    if (!opts.anyUrl) {
      try {
        parseInstanceUrl(profile.url);
      } catch (err) {
        const why = (err as Error).message.replace(/^instance URL /, 'its URL ');
        throw new DamagedProfileError(
          `profile '${shown(name)}' in ${shown(path)} has a URL svc cannot use (${why}); set it with 'svc profile add ${shown(name)} --url https://erp.example.com/acme', or remove it with 'svc profile remove ${shown(name)}'`,
        );
      }
    }
    return profile;
  };
  return {
    path,
    list: () => Object.entries(all()).map(([name, p]) => profileOf(name, p)).sort((a, b) => a.name.localeCompare(b.name)),
    get,
    has: (name) => Object.hasOwn(all(), name),
    current: () => readConfig(path).current,
    use(name) {
      if (!get(name, { anyUrl: true })) throw new UsageError(`no profile '${shown(name)}'${didYouMean(name, Object.keys(all()))} (see 'svc profile list')`);
      lockedWrite(path, () => {
        readConfig(path); // refused as every read refuses it, before conf reads or writes it
        writer().set('current', name);
      });
    },
    save(profile) {
      // A name is checked when it is new: an entry already in the file (a hand edit's "my prod") is written back as it is named.
      if (!Object.hasOwn(all(), profile.name)) checkProfileName(profile.name);
      return lockedWrite(path, () => {
        // A damaged entry of this name is replaced, as a new profile.
        const profiles = all();
        const before = Object.hasOwn(profiles, profile.name) && damageOf(profiles[profile.name]) === undefined ? get(profile.name, { anyUrl: true }) : undefined;
        const identifier = profile.identifier ?? (before && before.url === profile.url ? before.identifier : newIdentifier());
        const { name, ...rest } = { ...before, ...profile, identifier };
        const c = writer();
        c.set('profiles', { ...(c.get('profiles') ?? {}), [name]: rest });
        return { name, ...rest };
      });
    },
    remove(name) {
      return lockedWrite(path, () => {
        readConfig(path); // refused as every read refuses it, before conf reads or writes it
        const c = writer();
        const profiles = { ...(c.get('profiles') ?? {}) };
        if (!Object.hasOwn(profiles, name)) return false;
        delete profiles[name];
        c.set('profiles', profiles);
        if (c.get('current') === name) c.delete('current');
        return true;
      });
    },
  };
}

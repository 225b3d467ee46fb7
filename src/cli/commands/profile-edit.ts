/**
 * `svc profile add`, `use` and `remove`: they change the config file and say
 * what they did on stderr; stdout stays empty.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkProfileName, openProfiles } from '../../config/profiles.js';
import { UsageError } from '../../errors.js';
import { parseInstanceUrl } from '../../http/urls.js';
import { didYouMean } from '../../util/suggest.js';
import type { Deps } from '../deps.js';
import { forgetSecrets } from './profile-secrets.js';

interface AddFlags {
  url?: string;
  caFile?: string;
  use?: boolean;
  filterMember?: string;
}

/** Checks --filter-member: the query member filters are sent under. */
function checkFilterMember(value: string | undefined): 'filter' | 'filters' | undefined {
  if (value === undefined || value === 'filter' || value === 'filters') return value;
  throw new UsageError(`--filter-member takes 'filters' (the default) or 'filter', not '${value}'`);
}

function note(deps: Deps, line: string): void {
  deps.stderr.write(`${line}\n`);
}

/** An absolute path to a readable CA file, or a usage error naming it. */
function checkCaFile(file: string): string {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`cannot read CA file '${file}'; give the path of a PEM file with --ca-file`);
  return path;
}

/**
 * `svc profile add NAME --url URL [--ca-file FILE] [--use]`: adds the profile
 * or updates it. The first profile becomes current. A new URL drops the
 * secrets stored for the old one, so a token never goes to another instance.
 */
export async function addProfile(self: Command, deps: Deps, name: string): Promise<void> {
  const flags = self.optsWithGlobals<AddFlags>();
  checkProfileName(name);
  const profiles = await openProfiles(deps.configDir);
  const before = profiles.get(name);
  const raw = flags.url ?? before?.url;
  if (!raw) throw new UsageError(`no URL for profile '${name}'; run 'svc profile add ${name} --url https://erp.example.com/acme'`);
  const url = parseInstanceUrl(raw).instance;
  const caFile = flags.caFile === undefined ? undefined : checkCaFile(flags.caFile);
  const filterMember = checkFilterMember(flags.filterMember);
  const moved = before !== undefined && before.url.replace(/\/+$/, '') !== url;
  profiles.save({
    name,
    url,
    ...(caFile ? { caFile } : {}),
    ...(filterMember ? { filterMember } : {}),
    ...(moved ? { user: undefined, tokenExpires: undefined } : {}),
  });
  const current = profiles.current();
  const makeCurrent = flags.use === true || current === undefined || profiles.get(current) === undefined;
  if (makeCurrent) profiles.use(name);
  const what = before ? 'updated' : 'added';
  const then = makeCurrent ? '; it is the current profile' : `; use it with --profile ${name} or 'svc profile use ${name}'`;
  note(deps, `${what} profile '${name}' (${url})${then}`);
  if (moved) {
    const problem = await forgetSecrets(deps, name);
    const fix = `sign in again with 'svc login --profile ${name}'`;
    if (problem) note(deps, `svc: warning: the URL changed but the old secrets of '${name}' could not be removed (${problem}); ${fix}`);
    else note(deps, `the URL changed, so the stored secrets of '${name}' were removed; ${fix}`);
  }
}

/** `svc profile use NAME`. */
export async function useProfile(deps: Deps, name: string): Promise<void> {
  const profiles = await openProfiles(deps.configDir);
  profiles.use(name);
  note(deps, `now using profile '${name}' (${profiles.get(name)?.url ?? ''})`);
}

/** `svc profile remove NAME`: the profile, then its token and application secret, best effort. */
export async function removeProfile(deps: Deps, name: string): Promise<void> {
  const profiles = await openProfiles(deps.configDir);
  if (!profiles.get(name)) {
    const known = profiles.list().map((p) => p.name);
    throw new UsageError(`no profile '${name}'${didYouMean(name, known)} (see 'svc profile list')`);
  }
  const wasCurrent = profiles.current() === name;
  profiles.remove(name);
  const problem = await forgetSecrets(deps, name);
  const after = wasCurrent ? "; no profile is current now: choose one with 'svc profile use NAME'" : '';
  note(deps, `removed profile '${name}'${after}`);
  if (problem) {
    note(deps, `svc: warning: the secrets of '${name}' could not be removed (${problem}); delete the keychain entries 'profile:${name}/token' and 'profile:${name}/appsecret' of service 'svc' by hand`);
  }
}

/**
 * `svc profile add NAME --url URL [--ca-file FILE] [--use]`: adds the profile
 * or updates it, and says so on stderr (stdout stays empty). The first
 * profile becomes current. A new URL drops the secrets stored for the old
 * one, so a token never goes to another instance.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../../cli/context.js';
import { UsageError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';
import { parseInstanceUrl } from '../../../http/urls.js';
import { forgetSecrets } from '../secrets.js';
import type { ProfileAddOptions } from './options.js';

/** An absolute path to a readable CA file, or a usage error naming it. */
function checkCaFile(file: string): string {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`cannot read CA file '${shown(file)}'; give the path of a PEM file with --ca-file`);
  return path;
}

export async function runProfileAdd(opts: ProfileAddOptions, ctx: Context): Promise<void> {
  const { deps, globals } = ctx;
  const { name } = opts;
  const example = `svc profile add ${name} --url https://erp.example.com/acme`;
  if (globals.url === '') throw new UsageError(`--url is given an empty value (an unset variable?); give the instance URL: '${example}'`);
  if (globals.caFile === '') throw new UsageError('--ca-file is given an empty value (an unset variable?); give the path of a PEM file, or leave --ca-file out');
  const note = (line: string): void => void deps.stderr.write(`${line}\n`);
  const profiles = await ctx.profiles();
  const before = profiles.get(name, { anyUrl: true });
  const raw = globals.url ?? before?.url;
  if (!raw) throw new UsageError(`no URL for profile '${name}'; run '${example}'`);
  const url = parseInstanceUrl(raw).instance;
  const caFile = globals.caFile === undefined ? undefined : checkCaFile(globals.caFile);
  const moved = before !== undefined && before.url.replace(/\/+$/, '') !== url;
  profiles.save({
    name,
    url,
    ...(caFile ? { caFile } : {}),
    ...(opts.filterMember ? { filterMember: opts.filterMember } : {}),
    ...(opts.clientId ? { clientId: opts.clientId } : {}),
    ...(moved ? { user: undefined, tokenExpires: undefined, sandboxDir: undefined } : {}),
  });
  const current = profiles.current();
  const makeCurrent = opts.use || current === undefined || profiles.get(current, { anyUrl: true }) === undefined;
  if (makeCurrent) profiles.use(name);
  const what = before ? 'updated' : 'added';
  const then = makeCurrent || current === name ? '; it is the current profile' : `; use it with --profile ${name} or 'svc profile use ${name}'`;
  note(`${what} profile '${name}' (${url})${then}`);
  if (moved && before) {
    // Only what was there: a profile that never signed in has nothing to forget and nothing to say.
    const { removed, warnings } = await forgetSecrets(deps, before);
    const fix = `sign in again with 'svc login --profile ${name}'`;
    if (removed.length > 0) note(`the URL changed, so the stored secrets of '${name}' were removed; ${fix}`);
    else if (before.user !== undefined || before.tokenExpires !== undefined) note(`the URL changed; ${fix}`);
    warnings.forEach(note);
  }
}

/** `svc profile show [NAME]`: the chosen profile and whether (and where) a token is stored for it. */
import type { Profile, ProfileStore } from '../../../config/profiles.js';
import type { Context } from '../../../cli/context.js';
import type { Deps } from '../../../cli/deps.js';
import { UsageError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';
import { didYouMean } from '../../../util/suggest.js';
import { findStoredToken } from '../secrets.js';
import type { ProfileShowOptions } from './options.js';
import { profileView } from './render.js';

/** The profile a command names, else --profile, $SVC_PROFILE or the current one. */
export function chooseProfile(profiles: ProfileStore, deps: Deps, name: string | undefined, flag: string | undefined): Profile {
  const chosen = name ?? flag ?? (deps.env.SVC_PROFILE || profiles.current());
  if (chosen === undefined) {
    throw new UsageError("no profile chosen: name one ('svc profile show NAME'), or add one with 'svc profile add NAME --url URL'");
  }
  const profile = profiles.get(chosen, { anyUrl: true });
  if (profile) return profile;
  const known = profiles.list().map((p) => p.name);
  throw new UsageError(`no profile '${shown(chosen)}'${didYouMean(chosen, known)} (see 'svc profile list')`);
}

export async function runProfileShow(opts: ProfileShowOptions, ctx: Context): Promise<void> {
  const profiles = await ctx.profiles();
  const profile = chooseProfile(profiles, ctx.deps, opts.name, ctx.globals.profile);
  const stored = await findStoredToken(ctx.deps, profile);
  await ctx.emit(profileView(profile, { current: profiles.current() === profile.name, configFile: profiles.path, stored, nowMs: ctx.deps.now() }));
}

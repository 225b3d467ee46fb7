/**
 * `svc profile remove NAME`: the profile, then its token and secrets, best
 * effort; says so on stderr, and warns only about secrets that may be left.
 */
import type { Context } from '../../../cli/context.js';
import { DamagedProfileError, type Profile } from '../../../config/profiles.js';
import { UsageError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';
import { didYouMean } from '../../../util/suggest.js';
import { forgetSecrets } from '../secrets.js';
import type { ProfileRemoveOptions } from './options.js';

export async function runProfileRemove(opts: ProfileRemoveOptions, ctx: Context): Promise<void> {
  const { name } = opts;
  const note = (line: string): void => void ctx.deps.stderr.write(`${line}\n`);
  const profiles = await ctx.profiles();
  let profile: Profile | undefined;
  try {
    profile = profiles.get(name);
  } catch (err) {
    // A damaged entry (a hand edit) is removed all the same: this is the fix its message names.
    if (!(err instanceof DamagedProfileError)) throw err;
    profile = { name, url: '', identifier: '' };
  }
  if (!profile) {
    const known = profiles.list().map((p) => p.name);
    throw new UsageError(`no profile '${shown(name)}'${didYouMean(name, known)} (see 'svc profile list')`);
  }
  const wasCurrent = profiles.current() === name;
  profiles.remove(name);
  const { warnings } = await forgetSecrets(ctx.deps, profile);
  const after = wasCurrent ? "; no profile is current now: choose one with 'svc profile use NAME'" : '';
  note(`removed profile '${name}'${after}`);
  warnings.forEach(note);
}

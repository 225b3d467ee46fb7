/**
 * `svc profile remove NAME`: its token and secrets, best effort, then the
 * profile; says so on stderr, and warns only about secrets that may be left.
 */
import type { Context } from '../../../cli/context.js';
import { DamagedProfileError, type Profile } from '../../../config/profiles.js';
import { InterruptedError, UsageError } from '../../../errors.js';
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
    profile = profiles.get(name, { anyUrl: true });
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
  // The secrets before the entry: a stop between leaves a profile not signed in, which this command still
  // removes, never secrets no profile names. Ctrl-C and SIGTERM wait for both (a second one stops at once).
  const removeAll = async (): Promise<Awaited<ReturnType<typeof forgetSecrets>>> => {
    const forgotten = await forgetSecrets(ctx.deps, profile);
    profiles.remove(name);
    return forgotten;
  };
  const processes = ctx.deps.processes;
  let stopped: string | undefined;
  const { warnings } = processes?.holdSignals
    ? await processes.holdSignals(removeAll, (signal) => {
        stopped = signal;
        note(`svc: ${signal}: removing profile '${shown(name)}' first (again to stop at once)`);
      })
    : await removeAll();
  const after = wasCurrent ? "; no profile is current now: choose one with 'svc profile use NAME'" : '';
  note(`removed profile '${shown(name)}'${after}`);
  warnings.forEach(note);
  if (stopped) throw new InterruptedError(`interrupted by ${stopped}, after the profile was removed`);
}

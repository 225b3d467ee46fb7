/** `svc profile remove NAME`: the profile, then its token and application secret, best effort; says so on stderr. */
import type { Context } from '../../../cli/context.js';
import { UsageError } from '../../../errors.js';
import { didYouMean } from '../../../util/suggest.js';
import { forgetSecrets } from '../secrets.js';
import type { ProfileRemoveOptions } from './options.js';

export async function runProfileRemove(opts: ProfileRemoveOptions, ctx: Context): Promise<void> {
  const { name } = opts;
  const note = (line: string): void => void ctx.deps.stderr.write(`${line}\n`);
  const profiles = await ctx.profiles();
  if (!profiles.get(name)) {
    const known = profiles.list().map((p) => p.name);
    throw new UsageError(`no profile '${name}'${didYouMean(name, known)} (see 'svc profile list')`);
  }
  const wasCurrent = profiles.current() === name;
  profiles.remove(name);
  const problem = await forgetSecrets(ctx.deps, name);
  const after = wasCurrent ? "; no profile is current now: choose one with 'svc profile use NAME'" : '';
  note(`removed profile '${name}'${after}`);
  if (problem) {
    note(`svc: warning: the secrets of '${name}' could not be removed (${problem}); delete the keychain entries 'profile:${name}/token' and 'profile:${name}/appsecret' of service 'svc' by hand`);
  }
}

/** `svc profile use NAME`: says on stderr which profile is now current; an unknown name is a usage error. */
import type { Context } from '../../../cli/context.js';
import { shown } from '../../../util/shown.js';
import { shownUrl } from '../secrets.js';
import type { ProfileUseOptions } from './options.js';

export async function runProfileUse(opts: ProfileUseOptions, ctx: Context): Promise<void> {
  const profiles = await ctx.profiles();
  profiles.use(opts.name);
  ctx.deps.stderr.write(`now using profile '${shown(opts.name)}' (${shown(shownUrl(profiles.get(opts.name, { anyUrl: true })?.url ?? ''))})\n`);
}

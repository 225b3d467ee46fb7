/** `svc profile use NAME`: says on stderr which profile is now current; an unknown name is a usage error. */
import type { Context } from '../../../cli/context.js';
import type { ProfileUseOptions } from './options.js';

export async function runProfileUse(opts: ProfileUseOptions, ctx: Context): Promise<void> {
  const profiles = await ctx.profiles();
  profiles.use(opts.name);
  ctx.deps.stderr.write(`now using profile '${opts.name}' (${profiles.get(opts.name)?.url ?? ''})\n`);
}

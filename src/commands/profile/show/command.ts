/** `svc profile show [NAME]`: one profile's settings; never a token, only whether one is stored. */
import type { CommandSpec } from '../../../cli/command.js';
import { toProfileShowOptions, type ProfileShowOptions } from './options.js';

export const profileShowSpec: CommandSpec<ProfileShowOptions> = {
  name: 'show',
  summary: 'show a profile: URL, login identifier, CA file, config file, whether a token is stored',
  args: [{ name: 'name', help: 'a profile name (default: the one in use)', optional: true }],
  notes: `Without a name: the profile of --profile, else $SVC_PROFILE, else the current one.
Never shows a token, only whether one is stored.`,
  toOptions: toProfileShowOptions,
  run: async (opts, ctx) => (await import('./run.js')).runProfileShow(opts, ctx),
};

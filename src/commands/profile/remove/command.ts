/** `svc profile remove NAME`: the profile with its stored token and application secret. */
import type { CommandSpec } from '../../../cli/command.js';
import { toProfileRemoveOptions, type ProfileRemoveOptions } from './options.js';

export const profileRemoveSpec: CommandSpec<ProfileRemoveOptions> = {
  name: 'remove',
  summary: 'remove a profile with its stored token and application secret',
  args: [{ name: 'name', help: 'a profile name' }],
  toOptions: toProfileRemoveOptions,
  run: async (opts, ctx) => (await import('./run.js')).runProfileRemove(opts, ctx),
};

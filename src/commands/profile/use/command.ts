/** `svc profile use NAME`: make a profile the current one. */
import type { CommandSpec } from '../../../cli/command.js';
import { toProfileUseOptions, type ProfileUseOptions } from './options.js';

export const profileUseSpec: CommandSpec<ProfileUseOptions> = {
  name: 'use',
  summary: 'make a profile the current one',
  args: [{ name: 'name', help: 'a profile name' }],
  toOptions: toProfileUseOptions,
  run: async (opts, ctx) => (await import('./run.js')).runProfileUse(opts, ctx),
};

/** `svc profile list`: the profiles; * marks the current one. */
import type { CommandSpec, NoOptions } from '../../../cli/command.js';

/** `svc profile list` has no options of its own. */
export const profileListSpec: CommandSpec<NoOptions> = {
  name: 'list',
  summary: 'list the profiles; * marks the current one',
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runProfileList(opts, ctx),
};

/** `svc whoami`: the user the token belongs to. */
import type { CommandSpec, NoOptions } from '../../../cli/command.js';

/** `svc whoami` has no options of its own. */
export const whoamiSpec: CommandSpec<NoOptions> = {
  name: 'whoami',
  summary: 'show the signed-in user: name, e-mail, admin, groups and permissions',
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runWhoami(opts, ctx),
};

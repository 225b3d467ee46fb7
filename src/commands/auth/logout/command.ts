/** `svc logout`: invalidate the token at the service and forget it here. */
import type { CommandSpec, NoOptions } from '../../../cli/command.js';

/** `svc logout` has no options of its own (the global --profile and --url choose the instance). */
export const logoutSpec: CommandSpec<NoOptions> = {
  name: 'logout',
  summary: 'invalidate the token at the service and forget it here',
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runLogout(opts, ctx),
};

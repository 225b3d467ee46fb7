/** `svc config`: `GET /config`, shown as an object. */
import type { CommandSpec, NoOptions } from '../../../cli/command.js';

/** `svc config` has no options of its own. */
export const configSpec: CommandSpec<NoOptions> = {
  name: 'config',
  summary: "show the instance's user-visible system configuration (GET /config)",
  examples: ['svc config', 'svc config -o json'],
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runConfig(opts, ctx),
};

/** `svc settings`: `GET /settings`, shown as an object. */
import type { CommandSpec, NoOptions } from '../../../cli/command.js';

/** `svc settings` has no options of its own. */
export const settingsSpec: CommandSpec<NoOptions> = {
  name: 'settings',
  summary: 'show the settings of the application your token belongs to (GET /settings)',
  examples: ['svc settings', 'svc settings -o json'],
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runSettings(opts, ctx),
};

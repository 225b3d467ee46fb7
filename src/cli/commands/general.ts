/**
 * `svc config` and `svc settings`: the service's two general operations. The
 * bodies (general-view.ts) load only when a command runs.
 */
import type { Command } from 'commander';
import { emit } from '../legacy.js';
import type { Deps } from '../deps.js';

/** Adds `svc config` and `svc settings` to the program. */
export function addGeneralCommands(program: Command, deps: Deps): void {
  const add = (name: 'config' | 'settings', description: string): void => {
    program
      .command(name)
      .description(description)
      .addHelpText('after', `\nExamples:\n  svc ${name}\n  svc ${name} -o json\n`)
      .action(async (_opts: unknown, self: Command) => {
        const { fetchGeneral } = await import('./general-view.js');
        await emit(self, deps, () => fetchGeneral(self, deps, name));
      });
  };
  add('config', "show the instance's user-visible system configuration (GET /config)");
  add('settings', 'show the settings of the application your token belongs to (GET /settings)');
}

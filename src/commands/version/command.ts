/** `svc version`: the version with what it runs on and the commit it was built from (`svc --version` prints the version alone). */
import type { CommandSpec, NoOptions } from '../../cli/command.js';

/** `svc version` has no options of its own. */
export const versionSpec: CommandSpec<NoOptions> = {
  name: 'version',
  summary: 'print the version, the commit it was built from, and the Node.js and platform it runs on',
  notes: `'svc --version' prints the version alone; 'svc --version --verbose' is this
command. The commit is the build's ('unknown' when it was built outside a git
checkout; '-dirty' when the checkout had changes).`,
  examples: ['svc version', 'svc version -o json', 'svc --version --verbose'],
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runVersion(opts, ctx),
};

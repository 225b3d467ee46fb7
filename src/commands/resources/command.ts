/**
 * `svc resources`: every record family. The family named `resources` shares
 * the word: program.ts adds that family's verbs to this command (so `svc
 * resources query` reaches them) and refuses any other word after it.
 */
import type { CommandSpec, NoOptions } from '../../cli/command.js';

/** `svc resources` has no options of its own (the global -o and friends shape the list). */
export const resourcesSpec: CommandSpec<NoOptions> = {
  name: 'resources',
  summary: "list every record family: access, verbs, permissions, parent ('svc resources <verb>' works on the family named resources)",
  toOptions: () => ({}),
  run: async (opts, ctx) => (await import('./run.js')).runResources(opts, ctx),
};

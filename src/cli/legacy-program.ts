// TRANSITION ONLY (issue 13): the commands not yet turned into specs. Delete with the last one.
import type { Command } from 'commander';
import type { ResourceFamily } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { didYouMean } from '../util/suggest.js';
import { emit } from './legacy.js';
import type { Deps } from './deps.js';
import { describeView } from './commands/describe.js';
import { resourcesView } from './commands/resources.js';
import { addAuthCommands } from './commands/auth.js';
import { addLoginCommands } from './commands/login.js';
import { addProfileCommands } from './commands/profile.js';
import { addSandboxCommands } from './commands/sandbox/register.js';
import { addGeneralCommands } from './commands/general.js';
import { verbSpecs } from './verbs/index.js';
import type { Program } from './program.js';

export function addLegacy(program: Command, deps: Deps, _p: () => Program): void {
  program
    .command('resources')
    .description("list every record family: access, verbs, permissions, parent ('svc resources <verb>' works on the family named resources)")
    .argument('[verb]', 'a verb of the family named resources')
    .action(async (verb: string | undefined, _opts: unknown, self: Command) => {
      if (verb !== undefined) {
        const verbs = self.commands.map((c) => c.name());
        throw new UsageError(`unknown command '${verb}' for 'svc resources'${didYouMean(verb, verbs)} (run 'svc resources --help')`);
      }
      await emit(self, deps, () => resourcesView());
    });
  program
    .command('describe')
    .description("explain a resource or a field, like 'kubectl explain'")
    .argument('<path>', 'a resource (accounts), a field (accounts.type) or a path (accounts.contact.city)')
    .addHelpText('after', '\nExamples:\n  svc describe accounts\n  svc describe accounts.type\n  svc describe accounts -o json\n')
    .action(async (path: string, _opts: unknown, self: Command) => {
      await emit(self, deps, () => describeView(path));
    });
}

export function addLegacyTail(program: Command, deps: Deps): void {
  addLoginCommands(program, deps);
  addAuthCommands(program, deps);
  addProfileCommands(program, deps);
  addSandboxCommands(program, deps);
  addGeneralCommands(program, deps);
}

export function addLegacyVerbs(group: Command, family: ResourceFamily, deps: Deps, done: readonly string[]): void {
  for (const spec of verbSpecs) {
    if (done.includes(spec.name) || !spec.applies(family)) continue;
    spec.configure(group.command(spec.name).description(spec.summary(family)), family, deps);
  }
}

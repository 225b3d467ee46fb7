import type { Command } from 'commander';
import { families, type ResourceFamily } from '../catalogue/index.js';
import type { Deps } from './deps.js';
import type { GroupPlan } from './program.js';
import { verbSpecs } from './verbs/index.js';

/** One verb of a resource group: built once, added to every family that allows it. */
export interface VerbSpec {
  readonly name: string;
  readonly summary: (family: ResourceFamily) => string;
  readonly applies: (family: ResourceFamily) => boolean;
  readonly configure: (cmd: Command, family: ResourceFamily, deps: Deps) => void;
}

function groupSummary(f: ResourceFamily): string {
  return f.access === 'read-write' ? f.title : `${f.title} (${f.access})`;
}

/**
 * Adds one command group per family, with the verbs that family allows. Only
 * the groups the plan names get their verbs (building all 64 × 8 verbs and
 * their options costs more than the rest of startup); the others, when the
 * plan wants them, are bare groups for help and did-you-mean.
 */
export function addResourceCommands(program: Command, deps: Deps, plan: GroupPlan): void {
  for (const family of families) {
    const full = plan.full === 'all' || plan.full.includes(family.name);
    if (!full && !plan.shallow) continue;
    // A family may share its name with a hand-written command (the family
    // `resources` and `svc resources`): its verbs then join that command.
    const existing = program.commands.find((c) => c.name() === family.name);
    const group = existing ?? program.command(family.name).description(groupSummary(family)).helpGroup('Resource commands:');
    if (!full) continue;
    for (const spec of verbSpecs) {
      if (!spec.applies(family)) continue;
      spec.configure(group.command(spec.name).description(spec.summary(family)), family, deps);
    }
  }
}

import type { Command } from 'commander';
import { describeView } from '../commands/describe.js';
import { emit } from '../legacy.js';
import type { VerbSpec } from "../legacy-verb.js";

/** `svc <family> describe [field]`: the same as `svc describe <family>[.field]`. */
export const describeVerb: VerbSpec = {
  name: 'describe',
  summary: (f) => `show the fields of ${f.name} and their rules (same as 'svc describe ${f.name}')`,
  applies: () => true,
  configure: (cmd, family, deps) => {
    cmd.argument('[field]', 'one field, or a path through references such as contact.city').action(
      async (field: string | undefined, _opts: unknown, self: Command) => {
        await emit(self, deps, () => describeView(field ? `${family.name}.${field}` : family.name));
      },
    );
  },
};

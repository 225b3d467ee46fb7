/** `svc <family> delete ID`: removes one record, after a confirmation on a terminal or with --yes. */
import type { CommandSpec } from '../../../cli/command.js';
import type { VerbCommand } from '../record-verb.js';
import { ifMatchOptionSpec } from '../write-flags.js';
import { toDeleteOptions, type DeleteOptions } from './options.js';

export const deleteVerb: VerbCommand<'delete'> = {
  name: 'delete',
  spec: (family): CommandSpec<DeleteOptions> => ({
    name: 'delete',
    summary: `delete one ${family.name} record for good (DELETE /${family.name}/ID)`,
    args: [{ name: 'id', help: 'the record ID' }],
    options: [{ flags: '-y, --yes', help: 'delete without asking (required when there is no terminal)' }, ifMatchOptionSpec],
    examples: [`svc ${family.name} delete 42            # asks on a terminal`, `svc ${family.name} delete 42 --yes      # in scripts`],
    toOptions: (input) => toDeleteOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runDelete(opts, ctx),
  }),
};

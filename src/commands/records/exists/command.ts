/** `svc <family> exists ID`: the ID alone; the answer is the exit code. */
import type { CommandSpec } from '../../../cli/command.js';
import type { VerbCommand } from '../record-verb.js';
import { toExistsOptions, type ExistsOptions } from './options.js';

export const existsVerb: VerbCommand<'exists'> = {
  name: 'exists',
  spec: (family): CommandSpec<ExistsOptions> => ({
    name: 'exists',
    summary: `exit 0 when the ${family.name} record exists, 3 when not (nothing printed)`,
    args: [{ name: 'id', help: 'the record ID' }],
    toOptions: (input) => toExistsOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runExists(opts, ctx),
  }),
};

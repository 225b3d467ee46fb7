/** `svc <family> update ID field=value…`: changes the given fields of one record. */
import type { CommandSpec } from '../../../cli/command.js';
import type { VerbCommand } from '../record-verb.js';
import { bodyOptionSpecs, fieldsArgSpec, ifMatchOptionSpec, writeExamples } from '../write-flags.js';
import { toUpdateOptions, type UpdateOptions } from './options.js';

export const updateVerb: VerbCommand<'update'> = {
  name: 'update',
  spec: (family): CommandSpec<UpdateOptions> => ({
    name: 'update',
    summary: `change fields of one ${family.name} record (PATCH /${family.name}/ID)`,
    args: [{ name: 'id', help: 'the record ID' }, fieldsArgSpec],
    options: [...bodyOptionSpecs, ifMatchOptionSpec],
    // `-tags=x` is a field argument; other unknown options are refused by toBodyOptions.
    passUnknownOptions: true,
    examples: writeExamples(family, 'update'),
    toOptions: (input) => toUpdateOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runUpdate(opts, ctx),
  }),
};

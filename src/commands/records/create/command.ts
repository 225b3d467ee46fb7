/** `svc <family> create field=value…`: a new record from field arguments, --data or --data-file. */
import type { CommandSpec } from '../../../cli/command.js';
import type { VerbCommand } from '../record-verb.js';
import { dryRunHelp } from '../bulk-flags.js';
import { bodyOptionSpecs, fieldsArgSpec, writeExamples } from '../write-flags.js';
import { toCreateOptions, type CreateOptions } from './options.js';

export const createVerb: VerbCommand<'create'> = {
  name: 'create',
  spec: (family): CommandSpec<CreateOptions> => ({
    name: 'create',
    summary: `create one ${family.name} record from field=value arguments (PUT /${family.name})`,
    args: [fieldsArgSpec],
    options: [...bodyOptionSpecs, { flags: '--dry-run', help: dryRunHelp }],
    // `-tags=x` is a field argument; other unknown options are refused by toBodyOptions.
    passUnknownOptions: true,
    examples: writeExamples(family, 'create'),
    toOptions: (input) => toCreateOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runCreate(opts, ctx),
  }),
};

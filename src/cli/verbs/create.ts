import type { Command } from 'commander';
import type { VerbSpec } from "../legacy-verb.js";
import type { BodyOptions } from './write-input.js';
import { addBodyOptions, FIELDS_HELP, writeExamples } from './write-help.js';

/** `svc <family> create field=value…`: a new record from field arguments, --data or --data-file. */
export const createVerb: VerbSpec = {
  name: 'create',
  summary: (f) => `create one ${f.name} record from field=value arguments (PUT /${f.name})`,
  applies: (f) => f.operations.includes('create'),
  configure: (cmd, family, deps) => {
    addBodyOptions(cmd.argument('[fields...]', FIELDS_HELP))
      .addHelpText('after', writeExamples(family, 'create'))
      .action(async (fields: string[], opts: BodyOptions, self: Command) => {
        const { runCreate } = await import('./write-run.js');
        await runCreate(self, deps, family, fields, opts);
      });
  },
};

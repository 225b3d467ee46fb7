import type { Command } from 'commander';
import type { VerbSpec } from "../legacy-verb.js";
import { addBodyOptions, FIELDS_HELP, IF_MATCH_HELP, writeExamples } from './write-help.js';
import type { WriteFlags } from './write-run.js';

/** `svc <family> update ID field=value…`: changes the given fields of one record. */
export const updateVerb: VerbSpec = {
  name: 'update',
  summary: (f) => `change fields of one ${f.name} record (PATCH /${f.name}/ID)`,
  applies: (f) => f.operations.includes('update'),
  configure: (cmd, family, deps) => {
    addBodyOptions(cmd.argument('<id>', 'the record ID').argument('[fields...]', FIELDS_HELP))
      .option('--if-match <etag>', IF_MATCH_HELP)
      .addHelpText('after', writeExamples(family, 'update'))
      .action(async (id: string, fields: string[], opts: WriteFlags, self: Command) => {
        const { runUpdate } = await import('./write-run.js');
        await runUpdate(self, deps, family, id, fields, opts);
      });
  },
};

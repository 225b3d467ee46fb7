import type { Command } from 'commander';
import type { VerbSpec } from "../legacy-verb.js";
import { IF_MATCH_HELP } from './write-help.js';
import type { WriteFlags } from './write-run.js';

/** `svc <family> delete ID`: removes one record, after a confirmation on a terminal or with --yes. */
export const deleteVerb: VerbSpec = {
  name: 'delete',
  summary: (f) => `delete one ${f.name} record for good (DELETE /${f.name}/ID)`,
  applies: (f) => f.operations.includes('delete'),
  configure: (cmd, family, deps) => {
    cmd
      .argument('<id>', 'the record ID')
      .option('-y, --yes', 'delete without asking (required when there is no terminal)')
      .option('--if-match <etag>', IF_MATCH_HELP)
      .addHelpText('after', `\nExamples:\n  svc ${family.name} delete 42            # asks on a terminal\n  svc ${family.name} delete 42 --yes      # in scripts\n`)
      .action(async (id: string, opts: WriteFlags, self: Command) => {
        const { runDelete } = await import('./write-run.js');
        await runDelete(self, deps, family, id, opts);
      });
  },
};

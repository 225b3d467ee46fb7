/** `svc <family> delete ID`: removes one record (or every one matching --filter), after a confirmation on a terminal or with --yes. */
import type { CommandSpec } from '../../../cli/command.js';
import type { VerbCommand } from '../record-verb.js';
import { byFilterOptionSpecs, dryRunHelp } from '../bulk-flags.js';
import { ifMatchOptionSpec } from '../write-flags.js';
import { toDeleteOptions, type DeleteOptions } from './options.js';

const NOTES = [
  'With --filter, every matching record is deleted: the count is shown first, then asked about',
  '(--yes without a terminal). Each record is read with GET just before its DELETE, which carries',
  'its ETag in If-Match: a record changed meanwhile is reported and kept. --dry-run still reads',
  '(the count and the first IDs) to show its plan.',
].join('\n');

export const deleteVerb: VerbCommand<'delete'> = {
  name: 'delete',
  spec: (family): CommandSpec<DeleteOptions> => ({
    name: 'delete',
    summary: `delete one ${family.name} record for good (DELETE /${family.name}/ID), or every one matching --filter`,
    args: [{ name: 'id', help: 'the record ID (not with --filter)', optional: true }],
    options: [ifMatchOptionSpec, ...byFilterOptionSpecs, { flags: '--dry-run', help: dryRunHelp }],
    notes: NOTES,
    examples: [
      `svc ${family.name} delete 42            # asks on a terminal`,
      `svc ${family.name} delete 42 --yes      # in scripts`,
      `svc ${family.name} delete --filter 'lastmodified < -2y' --dry-run`,
      `svc ${family.name} delete --filter 'lastmodified < -2y' --yes --results deleted.ndjson`,
    ],
    toOptions: (input) => toDeleteOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runDelete(opts, ctx),
  }),
};

/** `svc <family> update ID field=value…`: changes the given fields of one record, or of every record matching --filter. */
import type { CommandSpec } from '../../../cli/command.js';
import type { VerbCommand } from '../record-verb.js';
import { byFilterOptionSpecs, dryRunHelp } from '../bulk-flags.js';
import { bodyOptionSpecs, fieldsArgSpec, ifMatchOptionSpec, writeExamples } from '../write-flags.js';
import { toUpdateOptions, type UpdateOptions } from './options.js';

const NOTES = [
  'With --filter, every matching record is updated: the count is shown first, then asked about',
  '(--yes without a terminal). Each record is read with GET just before its PATCH, which carries',
  'its ETag in If-Match: a record changed meanwhile is reported, never overwritten; one that',
  'already holds the values is left alone (unchanged). --dry-run still reads (the count and the',
  'first IDs) to show its plan.',
].join('\n');

export const updateVerb: VerbCommand<'update'> = {
  name: 'update',
  spec: (family): CommandSpec<UpdateOptions> => ({
    name: 'update',
    summary: `change fields of one ${family.name} record (PATCH /${family.name}/ID), or of every one matching --filter`,
    args: [{ name: 'id', help: 'the record ID (not with --filter)', optional: true }, fieldsArgSpec],
    options: [...bodyOptionSpecs, ifMatchOptionSpec, ...byFilterOptionSpecs, { flags: '--dry-run', help: dryRunHelp }],
    notes: NOTES,
    // `-tags=x` is a field argument; other unknown options are refused by toBodyOptions.
    passUnknownOptions: true,
    examples: [...writeExamples(family, 'update'), `svc ${family.name} update --filter 'ID > 100' extdata.batch=7 --yes --results out.ndjson`, `svc ${family.name} update 42 firstname=Ada --dry-run`],
    toOptions: (input) => toUpdateOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runUpdate(opts, ctx),
  }),
};

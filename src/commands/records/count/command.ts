/** `svc <family> count`: the filter options; prints the number of matching records. */
import type { CommandSpec } from '../../../cli/command.js';
import { filterOptionSpecs } from '../filter-flags.js';
import type { VerbCommand } from '../record-verb.js';
import { toCountOptions, type CountOptions } from './options.js';

export const countVerb: VerbCommand<'count'> = {
  name: 'count',
  spec: (family): CommandSpec<CountOptions> => ({
    name: 'count',
    summary: `count ${family.name} records, filtered`,
    options: filterOptionSpecs,
    examples: [`svc ${family.name} count`, `svc ${family.name} count --filter 'ID > 100' -o json`],
    toOptions: ({ flags }) => toCountOptions(family, flags),
    run: async (opts, ctx) => (await import('./run.js')).runCount(opts, ctx),
  }),
};

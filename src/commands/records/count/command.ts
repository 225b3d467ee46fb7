/** `svc <family> count`: the filter options; prints the number of matching records. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { CommandSpec } from '../../../cli/command.js';
import { filterOptionSpecs, toFilterOptions, type FilterOptions } from '../filter-flags.js';
import type { RecordVerb } from '../verbs.js';

export interface CountOptions extends FilterOptions {
  readonly family: ResourceFamily;
}

export const countVerb: RecordVerb = {
  name: 'count',
  operation: 'list',
  spec: (family): CommandSpec<CountOptions> => ({
    name: 'count',
    summary: `count ${family.name} records, filtered`,
    options: filterOptionSpecs,
    examples: [`svc ${family.name} count`, `svc ${family.name} count --filter 'ID > 100' -o json`],
    toOptions: ({ flags }) => ({ ...toFilterOptions(flags), family }),
    run: async (opts, ctx) => (await import('./run.js')).runCount(opts, ctx),
  }),
};

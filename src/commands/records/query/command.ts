/** `svc <family> query` (alias list): its options and help (the typed options: options.ts). */
import type { CommandSpec } from '../../../cli/command.js';
import { expandHelp } from '../../../records/expand.js';
import { filterOptionSpecs } from '../filter-flags.js';
import type { VerbCommand } from '../record-verb.js';
import { toQueryOptions, type QueryOptions } from './options.js';

export const queryVerb: VerbCommand<'query'> = {
  name: 'query',
  spec: (family): CommandSpec<QueryOptions> => ({
    name: 'query',
    aliases: ['list'],
    summary: `list ${family.name} records, filtered, sorted and paged`,
    options: [
      ...filterOptionSpecs,
      { flags: '--fields [list]', help: 'fields to show: a,b,contact.city,alias=path,extdata.name (without a value: list the fields)' },
      { flags: '--sort <list>', help: 'sort order, e.g. -lastmodified,+lastname' },
      { flags: '--limit <n>', help: "at most this many records (1 to 10000; default 50 on a terminal, else the service's 1000)" },
      { flags: '--offset <n>', help: 'skip this many records' },
      { flags: '--all', help: 'every matching record, page after page in ID order (streams; no silent truncation)' },
      { flags: '--page-size <n>', help: 'records per request with --all (default 1000)' },
      { flags: '--distinct', help: 'drop duplicate records (within one page: not with --all)' },
      { flags: '--expand <list>', help: expandHelp(family) },
    ],
    examples: [
      `svc ${family.name} query --filter 'ID > 100' --limit 10`,
      `svc ${family.name} query --all -o ndjson > ${family.name}.ndjson`,
      `svc ${family.name} query --fields ID --print-request`,
    ],
    toOptions: ({ flags }) => toQueryOptions(family, flags),
    run: async (opts, ctx) => (await import('./run.js')).runQuery(opts, ctx),
  }),
};

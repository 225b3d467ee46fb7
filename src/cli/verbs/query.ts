import { Option, type Command } from 'commander';
import { describeView } from '../commands/describe.js';
import { emit } from '../legacy.js';
import type { QueryFlags } from '../records/query-run.js';
import type { VerbSpec } from "../legacy-verb.js";

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Adds the filter options query and count share (--filter, --filter-json, --filter-file, --search, --tz, --explain, --print-request). */
export function filterOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--filter <expr>', "a filter expression, e.g. 'type = CUSTOMER and city ~* \"^ber\"' (repeatable: ANDed; see svc help filters)").argParser(collect))
    .addOption(new Option('--filter-json <json>', 'a filter as the service takes it, JSON (repeatable: ANDed)').argParser(collect))
    .option('--filter-file <file>', 'a JSON filter from a file (- for stdin)')
    .option('--search <text>', "the service's search across the family's text fields")
    .option('--tz <zone>', 'time zone for dates in filters and tables (default: this machine\'s), e.g. Europe/Berlin')
    .option('--explain', 'print the compiled JSON filter and send nothing')
    .option('--print-request', 'print the JSON body that would be sent, and send nothing');
}

/** `svc <family> query` (alias list). */
export const queryVerb: VerbSpec = {
  name: 'query',
  summary: (f) => `list ${f.name} records, filtered, sorted and paged`,
  applies: (f) => f.operations.includes('list'),
  configure: (cmd, family, deps) => {
    filterOptions(cmd.alias('list'))
      .addOption(new Option('--fields [list]', 'fields to show: a,b,contact.city,alias=path,extdata.name (without a value: list the fields)'))
      .option('--sort <list>', 'sort order, e.g. -lastmodified,+lastname')
      .option('--limit <n>', 'at most this many records (1 to 10000; default 50 on a terminal, else the service\'s 1000)')
      .option('--offset <n>', 'skip this many records')
      .option('--all', 'every matching record, page after page in ID order (streams; no silent truncation)')
      .option('--page-size <n>', 'records per request with --all (default 1000)')
      .option('--distinct', 'drop duplicate records')
      .option('--expand <list>', 'expand composite and bin file fields, e.g. picbinfile')
      .addHelpText('after', `\nExamples:\n  svc ${family.name} query --filter 'ID > 100' --limit 10\n  svc ${family.name} query --all -o ndjson > ${family.name}.ndjson\n  svc ${family.name} query --fields ID --print-request\n`)
      .action(async (flags: QueryFlags, self: Command) => {
        if (flags.fields === true) {
          await emit(self, deps, () => describeView(family.name));
          return;
        }
        const { runQuery } = await import('../records/query-run.js');
        await runQuery(self, deps, family, flags);
      });
  },
};

/** `svc <family> count`. */
export const countVerb: VerbSpec = {
  name: 'count',
  summary: (f) => `count ${f.name} records, filtered`,
  applies: (f) => f.operations.includes('list'),
  configure: (cmd, family, deps) => {
    filterOptions(cmd).action(async (flags: QueryFlags, self: Command) => {
      const { runCount } = await import('../records/query-run.js');
      await runCount(self, deps, family, flags);
    });
  },
};

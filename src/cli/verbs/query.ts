import { Option, type Command } from 'commander';

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


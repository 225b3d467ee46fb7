/** `svc <family> export`: its options and help (the typed options: options.ts). */
import type { CommandSpec } from '../../../cli/command.js';
import { ExitCode } from '../../../errors.js';
import { filterOptionSpecs } from '../filter-flags.js';
import type { VerbCommand } from '../record-verb.js';
import { toExportOptions, type ExportOptions } from './options.js';

const NOTES = [
  'The file is written to FILE.svc-partial, flushed and renamed into place; a failed or',
  'interrupted run leaves FILE untouched and keeps FILE.svc-checkpoint.json for --resume.',
  'Shards: csv and ndjson parts concatenate in shard order (the csv header is in shard 1 only);',
  'json is refused with --shard, as concatenated arrays are not one JSON document.',
  `Exit codes: ${ExitCode.ok} complete, ${ExitCode.failure} failed (checkpoint kept), ${ExitCode.usage} bad usage, ${ExitCode.interrupted} interrupted.`,
].join('\n');

export const exportVerb: VerbCommand<'export'> = {
  name: 'export',
  spec: (family): CommandSpec<ExportOptions> => ({
    name: 'export',
    summary: `export every matching ${family.name} record to csv, ndjson or json (streamed, parallel, resumable)`,
    options: [
      ...filterOptionSpecs,
      { flags: '--fields <list>', help: 'fields to export: a,b,contact.city,alias=path,extdata.name (default: every field)' },
      { flags: '--format <format>', help: "csv, ndjson or json (default: from -o, else from the file name's extension)" },
      { flags: '--output-file <file>', help: 'write to this file, atomically (default: stdout); --output FILE says the same, -o csv picks a format' },
      { flags: '--page-size <n>', help: 'records per request, 1 to 10000 (default 1000); halved while a page keeps failing' },
      { flags: '--concurrency <n>', help: 'fetch this many ID ranges in parallel, written in ID order (default 1, at most 32)' },
      { flags: '--shard <k/n>', help: 'export only the k-th of n ID ranges (e.g. 2/4); the parts concatenate to the whole' },
      { flags: '--resume', help: 'continue an interrupted export from its checkpoint (starts afresh when there is none)' },
      { flags: '--manifest', help: 'also write FILE.manifest.json: rows, sha256, filter, fields, times, svc version' },
      { flags: '--server-side', help: "use the service's own CSV export (admins only; ';'-separated), streamed to the file" },
      { flags: '--progress', help: 'show the progress line on stderr even when it is not a terminal' },
      { flags: '--quiet', help: 'no progress line, even on a terminal' },
    ],
    notes: NOTES,
    examples: [
      `svc ${family.name} export --format csv --output ${family.name}.csv --manifest`,
      `svc ${family.name} export --filter 'ID > 100' --fields ID,lastmodified --format ndjson > ${family.name}.ndjson`,
      `svc ${family.name} export --format csv --output ${family.name}.csv --concurrency 4 --resume   # in cron`,
      `svc ${family.name} export --format csv --output part-2.csv --shard 2/4   # then: cat part-*.csv`,
    ],
    toOptions: ({ flags }) => toExportOptions(family, flags),
    run: async (opts, ctx) => (await import('./run.js')).runExportCommand(opts, ctx),
  }),
};

import type { Command } from 'commander';
import type { ExportFlags } from '../records/export-run.js';
import type { VerbSpec } from "../legacy-verb.js";
import { filterOptions } from './query.js';

function examples(family: string): string {
  return [
    '',
    'Examples:',
    `  svc ${family} export --format csv --output ${family}.csv --manifest`,
    `  svc ${family} export --filter 'ID > 100' --fields ID,lastmodified --format ndjson > ${family}.ndjson`,
    `  svc ${family} export --format csv --output ${family}.csv --concurrency 4 --resume   # in cron`,
    `  svc ${family} export --format csv --output part-2.csv --shard 2/4   # then: cat part-*.csv`,
    '',
    'The file is written to FILE.svc-partial, flushed and renamed into place; a failed or',
    'interrupted run leaves FILE untouched and keeps FILE.svc-checkpoint.json for --resume.',
    'Shards: csv and ndjson parts concatenate in shard order (the csv header is in shard 1 only);',
    'json is refused with --shard, as concatenated arrays are not one JSON document.',
    'Exit codes: 0 complete, 1 failed (checkpoint kept), 2 bad usage, 130 interrupted.',
    '',
  ].join('\n');
}

/** `svc <family> export`: every matching record to a file or stdout, streamed, resumable. */
export const exportVerb: VerbSpec = {
  name: 'export',
  summary: (f) => `export every matching ${f.name} record to csv, ndjson or json (streamed, parallel, resumable)`,
  applies: (f) => f.operations.includes('list'),
  configure: (cmd, family, deps) => {
    filterOptions(cmd)
      .option('--fields <list>', 'fields to export: a,b,contact.city,alias=path,extdata.name (default: every field)')
      .option('--format <format>', "csv, ndjson or json (default: from -o, else from the file name's extension)")
      .option('--output-file <file>', 'write to this file, atomically (default: stdout); --output FILE says the same, -o csv picks a format')
      .option('--page-size <n>', 'records per request, 1 to 10000 (default 1000); halved while a page keeps failing')
      .option('--concurrency <n>', 'fetch this many ID ranges in parallel, written in ID order (default 1, at most 32)')
      .option('--shard <k/n>', 'export only the k-th of n ID ranges (e.g. 2/4); the parts concatenate to the whole')
      .option('--resume', 'continue an interrupted export from its checkpoint (starts afresh when there is none)')
      .option('--manifest', 'also write FILE.manifest.json: rows, sha256, filter, fields, times, svc version')
      .option('--server-side', "use the service's own CSV export (admins only; ';'-separated), streamed to the file")
      .option('--progress', 'show the progress line on stderr even when it is not a terminal')
      .option('--quiet', 'no progress line, even on a terminal')
      .addHelpText('after', examples(family.name))
      .action(async (flags: ExportFlags, self: Command) => {
        const { runExportCommand } = await import('../records/export-run.js');
        await runExportCommand(self, deps, family, flags);
      });
  },
};

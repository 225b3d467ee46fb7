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
  'json is refused with --shard, as concatenated arrays are not one JSON document; parquet parts',
  "are files of one dataset (DuckDB: read_parquet('part-*.parquet'); Spark: spark.read.parquet(dir)).",
  '--shard auto/N takes K from the job array task it runs in: JOB_COMPLETION_INDEX (Kubernetes',
  'indexed Job, 0-based: K = index + 1), SLURM_ARRAY_TASK_ID (K = id - SLURM_ARRAY_TASK_MIN + 1,',
  'so --array=0-3 and --array=1-4 both work) or AWS_BATCH_JOB_ARRAY_INDEX (0-based: K = index + 1).',
  'Parquet: typed columns from the catalogue (integers, IDs and Unix-second timestamps INT64,',
  'doubles DOUBLE, flags BOOLEAN, text and JSON values UTF-8), written a row group at a time.',
  `Exit codes: ${ExitCode.ok} complete, ${ExitCode.failure} failed (checkpoint kept), ${ExitCode.usage} bad usage, ${ExitCode.auth} not signed in or the token refused (checkpoint kept: sign in, then --resume), ${ExitCode.interrupted} interrupted.`,
].join('\n');

export const exportVerb: VerbCommand<'export'> = {
  name: 'export',
  spec: (family): CommandSpec<ExportOptions> => ({
    name: 'export',
    summary: `export every matching ${family.name} record to csv, ndjson, json or parquet (streamed, parallel, resumable)`,
    options: [
      ...filterOptionSpecs,
      { flags: '--fields <list>', help: 'fields to export: a,b,contact.city,alias=path,extdata.name (default: every field)' },
      { flags: '--format <format>', help: "csv, ndjson, json or parquet (default: from -o, else from the file name's extension)" },
      { flags: '--output-file <file>', help: 'write to this file, atomically (default: stdout); --output FILE says the same, -o csv picks a format' },
      { flags: '--compression <codec>', help: 'parquet pages: gzip (default; about 6 times smaller) or none (faster to write)' },
      { flags: '--page-size <n>', help: 'records per request, 1 to 10000 (default 1000); halved while a page keeps failing' },
      { flags: '--concurrency <n>', help: 'fetch this many ID ranges in parallel, written in ID order (default 1, at most 32)' },
      { flags: '--shard <k/n>', help: 'export only the k-th of n ID ranges (e.g. 2/4), or auto/n: k from the job array index (see below)' },
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
      `svc ${family.name} export --output ${family.name}.parquet --concurrency 4 --resume`,
      `svc ${family.name} export --output ${family.name}.parquet --compression none   # uncompressed pages: faster, larger`,
      `svc ${family.name} export --output ${family.name}-$JOB_COMPLETION_INDEX.parquet --shard auto/8   # a task of an 8-task job array`,
    ],
    toOptions: ({ flags }) => toExportOptions(family, flags),
    run: async (opts, ctx) => (await import('./run.js')).runExportCommand(opts, ctx),
  }),
};

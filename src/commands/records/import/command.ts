/** `svc <family> import --from FILE`: creates and updates records from CSV, NDJSON or a JSON array, with a results file and --resume. */
import type { CommandSpec } from '../../../cli/command.js';
import { ExitCode } from '../../../errors.js';
import type { VerbCommand } from '../record-verb.js';
import { concurrencyOptionSpec, dryRunHelp, GRACE_MS, resultsOptionSpec } from '../bulk-flags.js';
import { toImportOptions, type ImportOptions } from './options.js';

const NOTES = [
  'Rows: CSV (the header names the fields; each cell is converted as field=value is by create and',
  'update, so an empty cell is field=), NDJSON, or a JSON array of objects (taken as --data takes',
  'one). A row without an ID is created, a row with one updated; with --key FIELD a row is matched',
  'by that field instead: created when no record has its value, updated when one has, failed when',
  'several have. Every row is checked against the catalogue first: if any is invalid nothing is',
  'sent (exit 2, each bad row named by its line) unless --skip-invalid.',
  'Rows whose record already holds their values are left alone (unchanged): the lookup by ID or',
  'key fetches the fields the rows write; extdata, tags and JSON fields are not compared.',
  'A create is never sent twice blindly: one whose answer was lost is looked up by --key (and',
  'recorded as created when found), else recorded as unknown. --resume continues from the',
  'results file: done rows are skipped, failed ones retried, unknown ones checked again by key.',
  `Ctrl-C, SIGTERM or SIGHUP: no new row starts; rows in flight get ${GRACE_MS / 1000} s (SVC_BULK_GRACE) to finish, then`,
  `are cut off (a create then recorded unknown); exit ${ExitCode.interrupted}.`,
  '--dry-run still reads (the lookups by ID or key) to make its plan; it writes nothing.',
  `Exit codes: ${ExitCode.ok} every row done, ${ExitCode.failure} some failed or unknown, ${ExitCode.usage} invalid rows or usage,`,
  `${ExitCode.auth} the token or its permission was refused (401, 403: run svc login, then --resume), ${ExitCode.interrupted} interrupted.`,
].join('\n');

export const importVerb: VerbCommand<'import'> = {
  name: 'import',
  spec: (family): CommandSpec<ImportOptions> => ({
    name: 'import',
    summary: `create and update ${family.name} records from a CSV, NDJSON or JSON file (resumable)`,
    options: [
      { flags: '--from <file>', help: 'the rows: a CSV, NDJSON or JSON-array file, or - for stdin' },
      { flags: '--format <format>', help: "csv, ndjson or json (default: from the file's extension, else its first character)" },
      { flags: '--key <field>', help: 'match rows to records by this field instead of ID: update when found, create when not (upsert)' },
      { ...resultsOptionSpec, help: 'write one NDJSON line per row as it finishes: line, action (create, update, unchanged, skip, unknown), id, status, etag, error' },
      concurrencyOptionSpec,
      { flags: '--skip-invalid', help: 'import the valid rows and record the invalid ones as skipped (default: send nothing)' },
      { flags: '--resume', help: 'continue the import the results file records: skip rows done, retry failed ones' },
      { flags: '--dry-run', help: `${dryRunHelp}; shows the plan: creates, updates, unchanged and the first rows of each` },
      { flags: '--tz <zone>', help: 'time zone for dates without an offset in CSV cells, e.g. Europe/Berlin (default: local)' },
    ],
    notes: NOTES,
    examples: [
      `svc ${family.name} import --from ${family.name}.csv --results results.ndjson`,
      `svc ${family.name} import --from ${family.name}.ndjson --key ${family.name === 'accounts' ? 'customernum' : 'FIELD'} --concurrency 4 --results r.ndjson --resume   # in cron`,
      `svc ${family.name} import --from ${family.name}.csv --dry-run`,
      `cat rows.csv | svc ${family.name} import --from - --format csv --results r.ndjson`,
    ],
    toOptions: (input) => toImportOptions(family, input),
    run: async (opts, ctx) => (await import('./run.js')).runImport(opts, ctx),
  }),
};

/** `svc <family> sync`: its options and help (the typed options: options.ts). */
import type { CommandSpec } from '../../../cli/command.js';
import { ExitCode } from '../../../errors.js';
import { syncOptionSpecs } from '../sync-flags.js';
import { filterOptionSpecs } from '../filter-flags.js';
import type { VerbCommand } from '../record-verb.js';
import { toSyncOptions, type SyncOptions } from './options.js';

const NOTES = [
  'The first run copies every matching record into a table named as the family (primary key ID, typed',
  'columns); later runs fetch only records with lastmodified >= cursor - lag, upsert them by ID, remove',
  'records that left the filter, and compare IDs with the service to remove deleted ones.',
  'The filter, --fields and --keep-deleted are remembered in the target (table _svc_sync) with the cursor,',
  "in the same transaction as the data: a run without them uses the remembered ones. A crash leaves the",
  'copy at a committed page; run again to converge. A second sync into the same file refuses (exit 1).',
  '--status shows what the copy holds (rows, last run, cursor, remembered filter) without asking the service.',
  `Exit codes: ${ExitCode.ok} done, ${ExitCode.failure} failed, ${ExitCode.usage} bad usage, ${ExitCode.auth} not signed in, or the token or a permission refused, ${ExitCode.interrupted} interrupted.`,
].join('\n');

export const syncVerb: VerbCommand<'sync'> = {
  name: 'sync',
  spec: (family): CommandSpec<SyncOptions> => ({
    name: 'sync',
    summary: `keep a copy of the matching ${family.name} in a SQLite or DuckDB file in step (incremental)`,
    options: [...filterOptionSpecs, { flags: '--fields <list>', help: 'fields to copy: a,b,extdata.NAME,alias=path (default: every field; ID is always kept; no paths through a reference such as contact.city: their changes do not show)' }, ...syncOptionSpecs],
    notes: NOTES,
    examples: [
      `svc ${family.name} sync --into copy.sqlite`,
      `svc ${family.name} sync --into copy.duckdb --filter 'type = CUSTOMER' --fields ID,lastname,lastmodified`,
      `svc ${family.name} sync --into copy.sqlite -o ndjson   # in cron: one summary line`,
      `svc ${family.name} sync --into copy.sqlite --reset --filter 'type = SUPPLIER'   # change the remembered filter`,
      `svc ${family.name} sync --into copy.sqlite --status`,
    ],
    toOptions: ({ flags }) => toSyncOptions(family, flags),
    run: async (opts, ctx) => (await import('./run.js')).runSyncCommand(opts, ctx),
  }),
};

/** `svc sync --into TARGET FAMILY…`: several families kept in step in one database (the typed options: options.ts). */
import type { CommandSpec } from '../../cli/command.js';
import { ExitCode } from '../../errors.js';
import { syncOptionSpecs } from '../records/sync-flags.js';
import { toSyncAllOptions, type SyncAllOptions } from './options.js';

export const syncSpec: CommandSpec<SyncAllOptions> = {
  name: 'sync',
  summary: 'keep copies of several families in one SQLite or DuckDB file in step (incremental)',
  // A short name keeps the usage within the width of svc --help's command column.
  args: [{ name: 'fam', help: 'the families to copy, one table each (none: every family the file holds)', variadic: true, optional: true }],
  options: syncOptionSpecs,
  notes: [
    "Each family is synced as 'svc <family> sync --into TARGET' would, one after the other, with the filter",
    'and fields remembered for it in the target (set them with svc <family> sync; a family new to the',
    'target is copied whole). Without families, every family the target already holds is synced.',
    '-o json prints an array of summaries: family, inserted, updated, deleted, pages, seconds, cursor.',
    'Without -o and without a terminal it prints nothing (cron). --status shows what the target holds',
    '(rows, last run, cursor, remembered filter and fields) without asking the service.',
    `Exit codes: ${ExitCode.ok} done, ${ExitCode.failure} failed, ${ExitCode.usage} bad usage, ${ExitCode.auth} not signed in, or the token or a permission refused, ${ExitCode.interrupted} interrupted.`,
  ].join('\n'),
  examples: [
    'svc sync --into copy.sqlite accounts contacts',
    '*/15 * * * * svc sync --into /var/lib/svc/copy.sqlite -o json >> /var/log/svc-sync.log   # every family it holds',
    'svc sync --into copy.sqlite --status',
    'svc sync --into copy.duckdb accounts --concurrency 4',
  ],
  toOptions: (input) => toSyncAllOptions(input),
  run: async (opts, ctx) => (await import('./run.js')).runSyncAll(opts, ctx),
};

/**
 * The flags `svc <family> sync` and `svc sync` share, as data, their typed
 * form (src/sync/flags.ts), and the pure flags → options check (exit 2, one
 * line, on bad input).
 */
import { bool, str, type CommandInput, type OptionSpec } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseCount } from '../../records/query-body.js';
import type { SyncFlags } from '../../sync/flags.js';
import { engineOf } from '../../sync/store.js';
import { parseDuration } from '../../util/duration.js';

export const syncOptionSpecs: readonly OptionSpec[] = [
  { flags: '--into <file>', help: 'the database to keep in step: FILE.sqlite, FILE.sqlite3 or FILE.db (SQLite), FILE.duckdb (DuckDB); made when missing' },
  { flags: '--lag <duration>', help: 'also fetch records changed this long before the last cursor, for clock skew and long transactions (default 5m; 0 allowed)' },
  { flags: '--reconcile-every <n>', help: 'compare IDs with the service (finds deletions) every n runs (default 1: every run)' },
  { flags: '--keep-deleted', help: 'mark deleted records with a _deleted_at column (Unix seconds) instead of removing them' },
  { flags: '--reset', help: "rebuild the family's table (needed to change the remembered --filter, --fields or --keep-deleted)" },
  { flags: '--page-size <n>', help: 'records per request, 1 to 10000 (default 1000); halved while a page keeps failing' },
  { flags: '--concurrency <n>', help: 'fetch this many ID ranges in parallel, written in ID order (default 1, at most 32)' },
  { flags: '--progress', help: 'show the progress line on stderr even when it is not a terminal' },
  { flags: '--quiet', help: 'no progress line, even on a terminal' },
  { flags: '--status', help: 'show what the copy holds (rows, cursor, last run, remembered filter) without asking the service' },
];


/** The flags that change what a run does, refused beside --status (which only reads the copy). */
const RUN_FLAGS: readonly (readonly [string, string])[] = [
  ['lag', '--lag'],
  ['reconcileEvery', '--reconcile-every'],
  ['keepDeleted', '--keep-deleted'],
  ['reset', '--reset'],
  ['pageSize', '--page-size'],
  ['concurrency', '--concurrency'],
  ['progress', '--progress'],
  ['quiet', '--quiet'],
];

/** A usage error for a flag given with --status. */
export function refusedWithStatus(flag: string): UsageError {
  return new UsageError(`--status only reads the copy and syncs nothing, so it takes no ${flag}; run without --status to sync`);
}

/** The lag in whole seconds: a duration, or 0. */
export function parseLag(text: string): number {
  if (/^\s*0+(\.0*)?(ms|s|m|h|d|w)?\s*$/.test(text)) return 0;
  return Math.ceil(parseDuration(text, '--lag') / 1000);
}

export function toSyncFlags(flags: CommandInput['flags']): SyncFlags {
  const into = str(flags, 'into');
  if (into === undefined || into.trim() === '') throw new UsageError('sync needs --into FILE: a .sqlite, .sqlite3 or .db file (SQLite) or a .duckdb file (DuckDB)');
  engineOf(into);
  const lag = str(flags, 'lag');
  const every = str(flags, 'reconcileEvery');
  const pageSize = str(flags, 'pageSize');
  const concurrency = str(flags, 'concurrency');
  const status = bool(flags, 'status');
  const given = RUN_FLAGS.find(([key]) => flags[key] !== undefined && flags[key] !== false);
  if (status && given) throw refusedWithStatus(given[1]);
  if (bool(flags, 'progress') && bool(flags, 'quiet')) throw new UsageError('--progress and --quiet say opposite things; give one');
  return {
    into,
    lagSeconds: lag === undefined ? 300 : parseLag(lag),
    reconcileEvery: every === undefined ? 1 : parseCount('--reconcile-every', every, 1, 1_000_000),
    ...(bool(flags, 'keepDeleted') ? { keepDeleted: true } : {}),
    reset: bool(flags, 'reset'),
    pageSize: pageSize ? parseCount('--page-size', pageSize, 1, 10000) : 1000,
    concurrency: concurrency ? parseCount('--concurrency', concurrency, 1, 32) : 1,
    progress: bool(flags, 'progress'),
    quiet: bool(flags, 'quiet'),
    status,
  };
}

/** `svc <family> watch`'s typed options and how its flags become them, checked before anything is sent. */
import { findFamily, type ResourceFamily } from '../../../catalogue/index.js';
import { bool, str } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';
import { parseCount, parseFields, type Selected } from '../../../records/query-body.js';
import { MAX_TIMER_MS, parseDuration } from '../../../util/duration.js';
import { toFilterOptions, type FilterOptions } from '../filter-flags.js';

/** Polls between two ID comparisons (deletions): about every 5 minutes at the default 10s interval. */
export const DEFAULT_RECONCILE_EVERY = 30;
export const DEFAULT_INTERVAL_MS = 10_000;
export const DEFAULT_LAG_SECONDS = 300;

export interface WatchOptions extends FilterOptions {
  readonly family: ResourceFamily;
  /** --fields as typed (the cursor file's fingerprint keeps it so) … */
  readonly fields?: string;
  /** … and as parsed (absent: every field). */
  readonly selected?: readonly Selected[];
  readonly intervalMs: number;
  readonly lagSeconds: number;
  readonly reconcileEvery: number;
  readonly pageSize: number;
  /** --since as typed: a date (the filter language's forms) or a duration ago; checked and resolved against the clock by the run (since.ts), before anything is sent. */
  readonly since?: string;
  readonly cursorFile?: string;
  readonly once: boolean;
}

/** Flags → WatchOptions. */
export function toWatchOptions(family: ResourceFamily, flags: Readonly<Record<string, unknown>>): WatchOptions {
  if (!family.fields.some((f) => f.name === 'lastmodified')) {
    throw new UsageError(`${family.name} records have no lastmodified field, so svc cannot see their changes; watch works on families that have one`);
  }
  const filters = toFilterOptions(flags);
  const fields = str(flags, 'fields');
  const interval = str(flags, 'interval');
  const lag = str(flags, 'lag');
  const reconcile = str(flags, 'reconcileEvery');
  const pageSize = str(flags, 'pageSize');
  const since = str(flags, 'since');
  const cursorFile = str(flags, 'cursorFile');
  if (cursorFile === '') throw new UsageError('--cursor-file needs a file name');
  if (cursorFile === '-') throw new UsageError("--cursor-file takes a file the watch can resume from, not - (standard output); give a file name such as ./feed.cursor");
  const selected = fields !== undefined ? parseFields(family, fields, findFamily) : undefined;
  for (const s of selected ?? []) {
    // Every line names its record by "ID" (a delete carries only that), and the watch's own keys start with __svc_.
    if (s.name.toLowerCase() === 'id' && s.path !== 'ID') throw new UsageError(`--fields: 'ID' names the record's ID in every line, not ${s.path}; give that field another name (alias=path)`);
    // … under that name, in an upsert as in a delete ({"ID":n}): the ID under another name would not match its deletes.
    if (s.path === 'ID' && s.name !== 'ID') throw new UsageError(`--fields: the ID is written as "ID" in every line (a delete carries only {"ID":n}), not as ${shown(s.name, 80)}; give it as ID`);
    if (s.name.startsWith('__svc_')) throw new UsageError(`--fields: names starting with __svc_ are the watch's own; give ${s.path} another name (alias=path)`);
  }
  return {
    ...filters,
    family,
    ...(fields !== undefined && selected ? { fields, selected } : {}),
    intervalMs: interval === undefined ? DEFAULT_INTERVAL_MS : parseDuration(interval, '--interval', MAX_TIMER_MS),
    lagSeconds: lag === undefined ? DEFAULT_LAG_SECONDS : parseLag(lag),
    reconcileEvery: reconcile === undefined ? DEFAULT_RECONCILE_EVERY : parseCount('--reconcile-every', reconcile, 1, 1_000_000),
    pageSize: pageSize === undefined ? 1000 : parseCount('--page-size', pageSize, 1, 10000),
    ...(since !== undefined ? { since } : {}),
    ...(cursorFile !== undefined ? { cursorFile } : {}),
    once: bool(flags, 'once'),
  };
}

/** --lag: a duration (0 allowed: no window), in whole seconds rounded up, at most 30 days. */
function parseLag(text: string): number {
  if (/^0+(\.0+)?(ms|s|m|h|d|w)?$/.test(text.trim())) return 0;
  return Math.ceil(parseDuration(text, '--lag', 30 * 86_400_000) / 1000);
}

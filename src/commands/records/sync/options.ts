/** `svc <family> sync`'s typed options and how its flags become them. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { str } from '../../../cli/command.js';
import { UsageError } from '../../../errors.js';
import { findFamily } from '../../../catalogue/index.js';
import { parseFields } from '../../../records/query-body.js';
import type { SyncFlags } from '../../../sync/flags.js';
import { refusedWithStatus, toSyncFlags } from '../sync-flags.js';
import { filterGiven, toFilterOptions, type FilterOptions } from '../filter-flags.js';

export interface SyncOptions extends FilterOptions {
  readonly family: ResourceFamily;
  /** --fields as typed (checked), when given. */
  readonly fields?: string;
  readonly sync: SyncFlags;
}

export function toSyncOptions(family: ResourceFamily, flags: Readonly<Record<string, unknown>>): SyncOptions {
  const fields = str(flags, 'fields');
  if (fields !== undefined && fields.replace(/,/g, '').trim() === '') {
    throw new UsageError('--fields needs at least one field, e.g. --fields ID,lastname,lastmodified (leave --fields out for every field)');
  }
  if (fields !== undefined) parseFields(family, fields, findFamily);
  const filters = toFilterOptions(flags);
  const sync = toSyncFlags(flags);
  if (sync.status) {
    // What the copy remembers is shown, never changed: a filter or fields given beside --status would say otherwise.
    if (filterGiven(filters)) throw refusedWithStatus('filter flags (the remembered ones are shown)');
    if (fields !== undefined) throw refusedWithStatus('--fields (the remembered ones are shown)');
    if (filters.explain || filters.printRequest) throw refusedWithStatus(filters.explain ? '--explain' : '--print-request');
  }
  return { ...filters, family, ...(fields !== undefined ? { fields: fields.trim() } : {}), sync };
}

/** `svc <family> sync`'s typed options and how its flags become them. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { str } from '../../../cli/command.js';
import { findFamily } from '../../../catalogue/index.js';
import { parseFields } from '../../../records/query-body.js';
import { toSyncFlags, type SyncFlags } from '../../../sync/flags.js';
import { toFilterOptions, type FilterOptions } from '../filter-flags.js';

export interface SyncOptions extends FilterOptions {
  readonly family: ResourceFamily;
  /** --fields as typed (checked), when given. */
  readonly fields?: string;
  readonly sync: SyncFlags;
}

export function toSyncOptions(family: ResourceFamily, flags: Readonly<Record<string, unknown>>): SyncOptions {
  const fields = str(flags, 'fields');
  if (fields !== undefined && fields.trim() !== '') parseFields(family, fields, findFamily);
  return {
    ...toFilterOptions(flags),
    family,
    ...(fields !== undefined ? { fields: fields.trim() } : {}),
    sync: toSyncFlags(flags),
  };
}

/** `svc <family> count`'s typed options: the filter options of the family. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { CommandInput } from '../../../cli/command.js';
import { toFilterOptions, type FilterOptions } from '../filter-flags.js';

export interface CountOptions extends FilterOptions {
  readonly family: ResourceFamily;
}

/** Flags → CountOptions. */
export function toCountOptions(family: ResourceFamily, flags: CommandInput['flags']): CountOptions {
  return { ...toFilterOptions(flags), family };
}

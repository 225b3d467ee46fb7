/** `svc <family> delete ID`'s typed options. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { bool, str, type CommandInput } from '../../../cli/command.js';
import { parseWriteId } from '../../../records/record-id.js';

export interface DeleteOptions {
  readonly family: ResourceFamily;
  readonly id: string;
  /** --yes: no question asked. */
  readonly yes: boolean;
  readonly ifMatch?: string;
}

/** Arguments and flags → DeleteOptions: the ID checked. */
export function toDeleteOptions(family: ResourceFamily, { args, flags }: CommandInput): DeleteOptions {
  const ifMatch = str(flags, 'ifMatch');
  return { family, id: parseWriteId(family, String(args[0])), yes: bool(flags, 'yes'), ...(ifMatch !== undefined ? { ifMatch } : {}) };
}

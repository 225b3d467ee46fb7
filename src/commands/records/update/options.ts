/** `svc <family> update ID field=value…`'s typed options and how its arguments and flags become them. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { str, type CommandInput } from '../../../cli/command.js';
import { parseWriteId } from '../../../records/record-id.js';
import { toBodyOptions, type BodyOptions } from '../write-flags.js';

export interface UpdateOptions extends BodyOptions {
  readonly id: string;
  readonly ifMatch?: string;
}

/** Arguments and flags → UpdateOptions: the ID first, then the body's checks. */
export function toUpdateOptions(family: ResourceFamily, { args, flags }: CommandInput): UpdateOptions {
  const id = parseWriteId(family, String(args[0]));
  const ifMatch = str(flags, 'ifMatch');
  return { ...toBodyOptions(family, 'update', args[1], flags), id, ...(ifMatch !== undefined ? { ifMatch } : {}) };
}

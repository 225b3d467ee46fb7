/** `svc <family> exists ID`'s typed options. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { CommandInput } from '../../../cli/command.js';
import { parseRecordId } from '../../../records/record-id.js';

export interface ExistsOptions {
  readonly family: ResourceFamily;
  readonly id: string;
}

/** Arguments → ExistsOptions: the ID checked. */
export function toExistsOptions(family: ResourceFamily, { args }: CommandInput): ExistsOptions {
  return { family, id: parseRecordId(String(args[0])) };
}

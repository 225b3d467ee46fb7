/** `svc <family> create`'s typed options: the record body's (field arguments, --data, --data-file). */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { CommandInput } from '../../../cli/command.js';
import { toBodyOptions, type BodyOptions } from '../write-flags.js';

export type CreateOptions = BodyOptions;

/** Arguments and flags → CreateOptions: the body's checks. */
export function toCreateOptions(family: ResourceFamily, { args, flags }: CommandInput): CreateOptions {
  return toBodyOptions(family, 'create', args[0], flags);
}

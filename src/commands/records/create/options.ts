/** `svc <family> create`'s typed options: the record body's (field arguments, --data, --data-file) and --dry-run. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import { bool, type CommandInput } from '../../../cli/command.js';
import { toBodyOptions, type BodyOptions } from '../write-flags.js';

export interface CreateOptions extends BodyOptions {
  /** --dry-run: print the request, send nothing. */
  readonly dryRun?: boolean;
}

/** Arguments and flags → CreateOptions: the body's checks. */
export function toCreateOptions(family: ResourceFamily, { args, flags }: CommandInput): CreateOptions {
  return { ...toBodyOptions(family, 'create', args[0], flags), ...(bool(flags, 'dryRun') ? { dryRun: true } : {}) };
}

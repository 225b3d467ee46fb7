/** `svc <family> describe [field]`'s typed options. */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { CommandInput } from '../../../cli/command.js';

export interface DescribeOptions {
  readonly family: ResourceFamily;
  /** One field, or a path through references such as contact.city. */
  readonly field?: string;
}

/** Arguments → DescribeOptions; the path is checked when the view resolves it. */
export function toDescribeOptions(family: ResourceFamily, { args }: CommandInput): DescribeOptions {
  return typeof args[0] === 'string' && args[0] ? { family, field: args[0] } : { family };
}

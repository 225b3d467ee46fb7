/** `svc describe <path>`'s typed options: the path resolved against the catalogue. */
import type { ResourceFamily, ResourceField } from '../../catalogue/index.js';
import { resolvePath } from '../../records/describe-view.js';

export interface DescribeOptions {
  /** The path as given, e.g. `accounts.contact.city` (the field view shows it). */
  readonly path: string;
  /** The family the path ends in (the referenced one for a path through references). */
  readonly family: ResourceFamily;
  /** The field the path names; absent for a bare resource. */
  readonly field?: ResourceField;
}

/** The argument → DescribeOptions; an unknown resource or field is a UsageError with a did-you-mean. */
export function toDescribeOptions(path: string): DescribeOptions {
  const { family, field } = resolvePath(path);
  return field ? { path, family, field } : { path, family };
}

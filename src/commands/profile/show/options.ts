/** `svc profile show [NAME]`'s typed options. */
import type { CommandInput } from '../../../cli/command.js';

export interface ProfileShowOptions {
  /** The profile named on the command line; absent: --profile, $SVC_PROFILE or the current one. */
  readonly name?: string;
}

/** Arguments → ProfileShowOptions; the run chooses the profile when none is named. */
export function toProfileShowOptions({ args }: CommandInput): ProfileShowOptions {
  return typeof args[0] === 'string' ? { name: args[0] } : {};
}

/** `svc profile use NAME`'s typed options. */
import type { CommandInput } from '../../../cli/command.js';

export interface ProfileUseOptions {
  readonly name: string;
}

/** Arguments → ProfileUseOptions; the run checks that the profile exists. */
export function toProfileUseOptions({ args }: CommandInput): ProfileUseOptions {
  return { name: String(args[0]) };
}

/** `svc profile remove NAME`'s typed options. */
import type { CommandInput } from '../../../cli/command.js';

export interface ProfileRemoveOptions {
  readonly name: string;
}

/** Arguments → ProfileRemoveOptions; the run checks that the profile exists. */
export function toProfileRemoveOptions({ args }: CommandInput): ProfileRemoveOptions {
  return { name: String(args[0]) };
}

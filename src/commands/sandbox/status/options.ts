/** `svc sandbox status`'s typed options. */
import { str, type CommandInput } from '../../../cli/command.js';
import { toDataDir } from '../options.js';

export interface SandboxStatusOptions {
  /** --data-dir as given; the run resolves the default from the environment. */
  readonly dataDir?: string;
}

/** Flags → SandboxStatusOptions. */
export function toSandboxStatusOptions(flags: CommandInput['flags']): SandboxStatusOptions {
  const dataDir = toDataDir(str(flags, 'dataDir'));
  return dataDir !== undefined ? { dataDir } : {};
}

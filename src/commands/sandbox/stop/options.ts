/** `svc sandbox stop`'s typed options. */
import { str, type CommandInput } from '../../../cli/command.js';
import { toDataDir } from '../options.js';

export interface SandboxStopOptions {
  /** --data-dir as given; the run resolves the default from the environment. */
  readonly dataDir?: string;
}

/** Flags → SandboxStopOptions. */
export function toSandboxStopOptions(flags: CommandInput['flags']): SandboxStopOptions {
  const dataDir = toDataDir(str(flags, 'dataDir'));
  return dataDir !== undefined ? { dataDir } : {};
}

/** `svc sandbox reset`'s typed options and how its flags become them (the parsers are the noun's: ../options.ts). */
import { str } from '../../../cli/command.js';
import { toDataDir, toSeedAccounts } from '../options.js';

export interface SandboxResetOptions {
  /** --data-dir as given; the run resolves the default from the environment. */
  readonly dataDir?: string;
  /** Accounts in the new tenant; absent: as many as the running sandbox was started with, else the default. */
  readonly seedAccounts?: number;
}

/** Flags → SandboxResetOptions; a bad tenant size is a UsageError. */
export function toSandboxResetOptions(flags: Readonly<Record<string, unknown>>): SandboxResetOptions {
  const dataDir = toDataDir(str(flags, 'dataDir'));
  const seedAccounts = toSeedAccounts(str(flags, 'seedAccounts'));
  return { ...(dataDir !== undefined ? { dataDir } : {}), ...(seedAccounts !== undefined ? { seedAccounts } : {}) };
}

/** `svc sandbox start`'s typed options and how its flags become them (the parsers are the noun's: ../options.ts). */
import { bool, str } from '../../../cli/command.js';
import { DEFAULT_PORT, parseFaults, parseOauthAccessTtl, parsePort, toDataDir, toSeedAccounts } from '../options.js';

export interface SandboxStartOptions {
  /** --data-dir as given; the run resolves the default from the environment. */
  readonly dataDir?: string;
  readonly port: number;
  readonly https: boolean;
  readonly seedAccounts?: number;
  readonly faults?: number;
  /** --oauth-access-ttl in seconds; absent: the sandbox's default (1h). */
  readonly oauthAccessTtl?: number;
  /** Serve from this process instead of a detached child. */
  readonly foreground: boolean;
}

/** Flags → SandboxStartOptions; a bad port, tenant size, fault rate or token lifetime is a UsageError. */
export function toSandboxStartOptions(flags: Readonly<Record<string, unknown>>): SandboxStartOptions {
  const dataDir = toDataDir(str(flags, 'dataDir'));
  const port = str(flags, 'port');
  const seedAccounts = toSeedAccounts(str(flags, 'seedAccounts'));
  const faults = str(flags, 'faults');
  const ttl = str(flags, 'oauthAccessTtl');
  return {
    ...(dataDir !== undefined ? { dataDir } : {}),
    port: port === undefined ? DEFAULT_PORT : parsePort(port),
    https: bool(flags, 'https'),
    ...(seedAccounts !== undefined ? { seedAccounts } : {}),
    ...(faults !== undefined ? { faults: parseFaults(faults) } : {}),
    ...(ttl !== undefined ? { oauthAccessTtl: parseOauthAccessTtl(ttl) } : {}),
    foreground: bool(flags, 'foreground'),
  };
}

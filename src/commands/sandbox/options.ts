/**
 * Options of `svc sandbox …`: which port it listens on, how large a new tenant
 * is. Pure, and cheap to load: the command tree imports this module.
 */
import type { OptionSpec } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { parseDuration } from '../../util/duration.js';

/** The port `svc sandbox start` listens on unless told otherwise. */
export const DEFAULT_PORT = 8642;

/** Start-up waits this long for the sandbox to answer its health check. */
export const START_TIMEOUT_MS = 20_000;

/**
 * How long start-up waits for a sandbox seeding `accounts` accounts: START_TIMEOUT_MS, and 150 s more a
 * million (seeding took 63 s a million on a 2-core machine; a new data dir is seeded before it answers).
 */
export function startTimeoutMs(accounts: number | undefined): number {
  return START_TIMEOUT_MS + Math.ceil(((accounts ?? 0) * 150_000) / 1_000_000);
}

/** What `start` (and `reset`, when it restarts) needs to know. */
export interface StartOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly https: boolean;
  /** Accounts in a newly seeded tenant; undefined: the sandbox's default. */
  readonly seedAccounts?: number | undefined;
  /** Share of requests to fail at random (--faults). */
  readonly faults?: number | undefined;
  /** Lifetime of OAuth access tokens in seconds (--oauth-access-ttl); undefined: the sandbox's default, 1 hour. */
  readonly oauthAccessTtlSeconds?: number | undefined;
}

/** The longest --oauth-access-ttl: as long as a refresh token lives. */
const MAX_OAUTH_ACCESS_TTL_MS = 100 * 86_400_000;

/** Parses --oauth-access-ttl: a duration such as 90s, 5m or 1h, in whole seconds from 1 s to 100 days. */
export function parseOauthAccessTtl(value: string): number {
  const ms = parseDuration(value, '--oauth-access-ttl', MAX_OAUTH_ACCESS_TTL_MS);
  if (ms < 1000) throw new UsageError(`--oauth-access-ttl '${shown(value, 40)}' is too short; use at least 1s, e.g. 5m or 1h`);
  return Math.floor(ms / 1000);
}

/** Parses --faults: a share of requests from 0 to 1, e.g. 0.1. */
export function parseFaults(value: string): number {
  const n = Number(value);
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value.trim()) || n < 0 || n > 1) {
    throw new UsageError(`--faults takes a share of requests from 0 to 1, e.g. 0.1, not '${shown(value, 40)}'`);
  }
  return n;
}

function parseInteger(value: string, what: string, min: number, max: number, fix: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`invalid ${what} '${shown(value, 40)}'; ${fix}`);
  return n;
}

/** `--port N`: 0 (a free port) to 65535. */
export function parsePort(value: string): number {
  return parseInteger(value, 'port', 0, 65_535, 'give a number from 1 to 65535, or 0 for a free port');
}

/** `--seed-accounts N`: how many accounts a newly seeded tenant gets. */
export function parseSeedAccounts(value: string): number {
  return parseInteger(value, 'number of accounts', 1, 1_000_000, 'give a whole number from 1 to 1000000');
}

/** `--data-dir`, which every sandbox verb takes. */
export const dataDirOption: OptionSpec = {
  flags: '--data-dir <dir>',
  help: 'the sandbox data dir (default: $SVC_SANDBOX_DIR, else $XDG_DATA_HOME/svc/sandbox, else ~/.local/share/svc/sandbox)',
};

/**
 * `--data-dir` as given, checked: an empty value (an unset variable in a script) is a UsageError rather than
 * the default data dir, which `reset` would wipe.
 */
export function toDataDir(value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError("--data-dir is empty; give a directory, e.g. --data-dir ./sandbox-data (leave the option out for the default one)");
  return value;
}

/** `--seed-accounts N` as a flag value, checked; absent: the sandbox's default. */
export function toSeedAccounts(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseSeedAccounts(value);
}

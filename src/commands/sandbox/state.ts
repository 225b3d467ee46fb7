/**
 * The files a sandbox keeps in its data dir, and the state file that says
 * which process serves it: written by the serving process once it listens,
 * removed when it stops.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, openSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessControl } from '../../cli/deps.js';
import { checkHealth } from './health.js';

/** What the serving process records about itself. */
export interface SandboxState {
  readonly pid: number;
  /** `http://127.0.0.1:PORT`; absent while the process is still starting. */
  readonly origin?: string;
  readonly port?: number;
  /** `<origin>/demo`, the URL a client is given. */
  readonly instanceUrl?: string;
  readonly https: boolean;
  /** The CA certificate to trust, under https. */
  readonly caFile?: string;
  readonly seedAccounts?: number;
  /** --oauth-access-ttl in seconds, when given (reset restarts with it). */
  readonly oauthAccessTtlSeconds?: number;
  /** ISO time the process started. */
  readonly startedAt: string;
}

/** Paths of the files in a data dir. */
export function sandboxFiles(dataDir: string) {
  return {
    state: join(dataDir, 'sandbox.json'),
    log: join(dataDir, 'sandbox.log'),
    database: join(dataDir, 'sandbox.sqlite'),
    credentials: join(dataDir, 'credentials.json'),
    tls: join(dataDir, 'tls'),
  };
}

/** Creates the data dir (mode 0700) when missing, and tightens it when it exists. */
export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
}

/** Creates the database file with mode 0600 first, so SQLite's -wal and -shm files get that mode too. */
export function ensurePrivateDatabase(dataDir: string): void {
  const file = sandboxFiles(dataDir).database;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

/** Writes a text file with mode 0600, replacing it atomically. */
export function writePrivateFile(file: string, text: string): void {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The recorded state, or undefined when there is none (or it is unreadable). */
export function readState(dataDir: string): SandboxState | undefined {
  const file = sandboxFiles(dataDir).state;
  if (!existsSync(file)) return undefined;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as SandboxState;
    return Number.isInteger(state.pid) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Records the state of the serving process. */
export function writeState(dataDir: string, state: SandboxState): void {
  writePrivateFile(sandboxFiles(dataDir).state, `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes the state file; with `pid`, only when it still names that process. */
export function removeState(dataDir: string, pid?: number): void {
  if (pid !== undefined && readState(dataDir)?.pid !== pid) return;
  rmSync(sandboxFiles(dataDir).state, { force: true });
}

/** What a look at the data dir finds. */
export interface Probe {
  readonly state?: SandboxState | undefined;
  /** The recorded process exists. */
  readonly alive: boolean;
  /** It listens and answers `/_sandbox/health`. */
  readonly healthy: boolean;
}

/** Whether a sandbox runs from this data dir: its process is alive and answers. */
export async function probeSandbox(dataDir: string, proc: ProcessControl): Promise<Probe> {
  const state = readState(dataDir);
  const alive = state !== undefined && proc.kill(state.pid, 0);
  const healthy = alive && state.origin !== undefined && (await checkHealth(state.origin, state.caFile));
  return { state, alive, healthy };
}

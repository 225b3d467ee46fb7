/**
 * Every side effect svc may have, injected. `main.ts` builds the real one from
 * `process`; tests build their own (test/helpers/deps.ts).
 */

import type { InStream, OutStream } from '../output/io.js';
import type { SpawnPager } from '../output/pager.js';

/** The stream types live with the formatters that write to them (src/output/io.ts). */
export type { InStream, OutStream } from '../output/io.js';

export interface Deps {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly stdin: InStream;
  /** The environment svc reads (SVC_*, NO_COLOR, …); never process.env directly. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds since the epoch. */
  now(): number;
  /** Milliseconds from any start, never stepped as the wall clock can be (for durations); absent: performance.now(). */
  monotonic?(): number;
  /** Where svc keeps its configuration (profiles; never secrets). */
  readonly configDir: string;
  /** The Node.js version running svc (`process.version`), for `svc version`; absent in most tests. */
  readonly nodeVersion?: string;
  /** Signals and child processes (`svc sandbox` needs them); absent in most tests. */
  readonly processes?: ProcessControl;
  /**
   * The OS keychain. Absent: the real one (service "svc"). Tests give a real
   * keychain under a service name of their own, so they never touch the user's.
   */
  readonly keychain?: () => import('../auth/store.js').CredentialStore;
}

/** Signals and child processes, for `svc sandbox`; main.ts provides them from `process`. */
export interface ProcessControl {
  /** This process's id. */
  readonly pid: number;
  /** The Node.js executable running svc (`process.execPath`). */
  readonly execPath: string;
  /**
   * Calls `fn` once when this process receives the signal; a repeat of the
   * same signal right after (conf's writer re-raises it) is absorbed. SIGHUP
   * (the terminal closed): what is then written to the terminal is dropped.
   */
  onceSignal(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', fn: () => void): void;
  /** Sends a signal (0 only probes); false when no such process exists. */
  kill(pid: number, signal: 'SIGTERM' | 'SIGKILL' | 0): boolean;
  /**
   * Starts `command args…` detached from this process, stdin closed, stdout and
   * stderr appended to `logFile`; resolves to its pid.
   */
  spawnDetached(command: string, args: readonly string[], opts: { readonly logFile: string; readonly env: Readonly<Record<string, string | undefined>> }): Promise<number>;
  /** The operating system (`process.platform`): which program opens a URL. */
  readonly platform: NodeJS.Platform;
  /**
   * Starts `command args…` detached, its input and output discarded, and does
   * not wait for it (a browser); resolves false when it could not be started.
   */
  spawnQuiet(command: string, args: readonly string[]): Promise<boolean>;
  /**
   * Runs `work` with SIGINT and SIGTERM held back (the few milliseconds in which a renewed token pair
   * travels from the service to the store): `onHeld` is called when one comes, a second one stops the
   * process at once, and a held one is raised again once `work` has settled.
   */
  holdSignals?<T>(work: () => Promise<T>, onHeld: (signal: 'SIGINT' | 'SIGTERM') => void): Promise<T>;
  /**
   * Runs `work` with SIGINT and SIGTERM at the system's default: either ends the process at once, even in
   * the middle of synchronous work (the sandbox's seeding, one transaction an ended process never commits),
   * where a handler would wait for that work's end. The handlers come back once `work` has settled.
   */
  defaultSignals?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Starts a pager for a table on the terminal (src/output/pager.ts): its input
   * a pipe, its output this process's; Ctrl-C is the pager's while it runs.
   * Absent: tables are never paged (most tests).
   */
  readonly spawnPager?: SpawnPager;
}

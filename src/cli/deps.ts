/**
 * Every side effect svc may have, injected. `main.ts` builds the real one from
 * `process`; tests build their own (test/helpers/deps.ts).
 */

/** A writable text stream and what svc needs to know about its terminal. */
export interface OutStream {
  /** Text, or UTF-8 bytes (exports hand over encoded pages). */
  write(chunk: string | Uint8Array): boolean;
  /**
   * Calls back once the stream has taken what it buffered after a write that
   * returned false (a real stream's 'drain'); streamed output waits for it
   * (src/output/drain.ts), so a slow reader of a pipe slows svc down instead
   * of filling its memory.
   */
  once?(event: 'drain' | 'error' | 'close', listener: (err?: unknown) => void): unknown;
  removeListener?(event: 'drain' | 'error' | 'close', listener: (err?: unknown) => void): unknown;
  /** The error that broke the stream (a real stream's writableErrored), so a full disk is reported, not waited on. */
  readonly writableErrored?: unknown;
  /** Closed: nothing more can be written. */
  readonly destroyed?: boolean;
  readonly isTTY: boolean;
  /** Terminal width in characters, when known. */
  readonly columns?: number | undefined;
}

/** Standard input; read only when a command is told to (`--data-file -`, `--password-stdin`) or asks on a terminal. */
export interface InStream extends AsyncIterable<string | Buffer> {
  readonly isTTY: boolean;
  /** On a terminal: stop echoing typed characters (for passwords). */
  setRawMode?(mode: boolean): unknown;
}

export interface Deps {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly stdin: InStream;
  /** The environment svc reads (SVC_*, NO_COLOR, …); never process.env directly. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds since the epoch. */
  now(): number;
  /** Where svc keeps its configuration (profiles; never secrets). */
  readonly configDir: string;
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
   * same signal right after (conf's writer re-raises it) is absorbed.
   */
  onceSignal(signal: 'SIGINT' | 'SIGTERM', fn: () => void): void;
  /** Sends a signal (0 only probes); false when no such process exists. */
  kill(pid: number, signal: 'SIGTERM' | 'SIGKILL' | 0): boolean;
  /**
   * Starts `command args…` detached from this process, stdin closed, stdout and
   * stderr appended to `logFile`; resolves to its pid.
   */
  spawnDetached(command: string, args: readonly string[], opts: { readonly logFile: string; readonly env: Readonly<Record<string, string | undefined>> }): Promise<number>;
}

/**
 * The streams svc writes to and reads from, as svc needs them: what the
 * formatters (src/output), exports (src/export) and commands take. The real
 * ones are `process.stdout`/`stderr`/`stdin`, handed over by src/cli/main.ts
 * through `Deps` (src/cli/deps.ts); tests give captured ones.
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
  /** Stops reading for now (a reader that gave up waiting); standard input then keeps svc from exiting no longer. */
  pause?(): unknown;
}

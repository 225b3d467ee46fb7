/**
 * Every side effect svc may have, injected. `main.ts` builds the real one from
 * `process`; tests build their own (test/helpers/deps.ts).
 */

/** A writable text stream and what svc needs to know about its terminal. */
export interface OutStream {
  write(chunk: string): boolean;
  readonly isTTY: boolean;
  /** Terminal width in characters, when known. */
  readonly columns?: number | undefined;
}

/** Standard input; read only when a command is told to (`--data-file -`). */
export interface InStream extends AsyncIterable<string | Buffer> {
  readonly isTTY: boolean;
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
}

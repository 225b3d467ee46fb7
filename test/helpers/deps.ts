import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CredentialStore } from '../../src/auth/store.js';
import type { Deps, InStream, OutStream } from '../../src/cli/deps.js';
import { run } from '../../src/cli/run.js';

/** A captured output stream that looks like a terminal or a pipe. */
export class Capture implements OutStream {
  text = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {}
  private readonly decoder = new TextDecoder();
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return true;
  }
}

function emptyStdin(isTTY: boolean): InStream {
  return {
    isTTY,
    async *[Symbol.asyncIterator]() {
      // Tests give no stdin unless they say so.
    },
  };
}

export interface TestDepsOptions {
  /** stdout, stderr and stdin are terminals (default false: a pipe, as in cron). */
  tty?: boolean;
  columns?: number;
  env?: Record<string, string | undefined>;
  /** Reuse this config dir (profiles persist across runs); default a fresh temporary one. */
  configDir?: string;
  /** The keychain svc uses: give a test service of its own (never the user's "svc"). */
  keychain?: () => CredentialStore;
}

/** Deps for one in-process run: captured streams, fixed clock, a fresh config dir. */
export function createTestDeps(opts: TestDepsOptions = {}): Deps & { stdout: Capture; stderr: Capture } {
  const tty = opts.tty ?? false;
  return {
    stdout: new Capture(tty, tty ? (opts.columns ?? 120) : undefined),
    stderr: new Capture(tty, tty ? (opts.columns ?? 120) : undefined),
    stdin: emptyStdin(tty),
    env: { ...opts.env },
    now: () => Date.UTC(2026, 10, 22, 12, 0, 0),
    configDir: opts.configDir ?? mkdtempSync(join(tmpdir(), 'svc-test-config-')),
    ...(opts.keychain ? { keychain: opts.keychain } : {}),
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs svc in-process as a user would type it. */
export async function svc(argv: string[], opts: TestDepsOptions = {}): Promise<CliResult> {
  const deps = createTestDeps(opts);
  const code = await run(argv, deps);
  return { code, stdout: deps.stdout.text, stderr: deps.stderr.text };
}

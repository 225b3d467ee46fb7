/**
 * The harness shared by the s7 attack tests (test/attack/s7-*.test.ts) that
 * run the built svc, spawned as `node bin/svc.js` the way a user's shell or a
 * cron job would, against a REAL hostile server: a node:http (or node:https)
 * server of the test file's own on 127.0.0.1, set as the instance URL.
 *
 * - {@link useHostileServer}: starts the server before the file's tests and
 *   closes it after them; hands out its port, its URL and a set of timers
 *   cleared after each test.
 * - {@link useSpawnedSvc}: spawns svc with a clean environment (a fresh config
 *   directory, the URL, a token, NO_COLOR) and kills whatever a test left
 *   running.
 *
 * Both register their vitest hooks when called, so call them at the top level
 * of a test file (or of a `describe`). What the server answers stays in the
 * test file: its request handlers are the test.
 *
 * @example
 * ```ts
 * let handler: Handler = (_req, res) => res.end();
 * const hostile = useHostileServer((req, res) => handler(req, res));
 * const { run: svc } = useSpawnedSvc({ url: hostile.url });
 *
 * it('a 500 is one line', async () => {
 *   handler = (_req, res) => res.writeHead(500).end('no');
 *   const r = await svc(['accounts', 'get', '1']);
 *   expect(r.code).toBe(1);
 * });
 * ```
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server as TlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** The repository's root, with a trailing slash: svc is spawned as `${root}bin/svc.js`, in this directory. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

/** The token svc is given (SVC_TOKEN) unless a file says otherwise: long enough to pass as a real one, easy to spot in output. */
export const TOKEN = 'hostile-test-token-0123456789abcdef0123456789';

/** What a hostile server does with a request. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** How {@link useHostileServer} makes and tends its server. */
export interface HostileServerOptions {
  /**
   * Makes the server for `listener` instead of `node:http`'s `createServer`,
   * in the file's `beforeAll` (so it may await, e.g. a test certificate for a
   * `node:https` server). A TLS server's {@link HostileServer.url} is `https:`.
   */
  create?: (listener: Handler) => Server | Promise<Server>;
  /**
   * Also closes every connection the server holds after each test (a handler
   * that never answers, or trickles, leaves them open). Off by default: the
   * server's connections are then closed only after the file's last test.
   */
  closeConnectionsAfterEach?: boolean;
}

/** A server started by {@link useHostileServer}. Its properties may be read once the file's `beforeAll` hooks ran (in tests and later hooks). */
export interface HostileServer {
  /** The server itself; throws before it was started. */
  readonly server: Server;
  /** The port it listens on, on 127.0.0.1 (0 before it was started). */
  readonly port: number;
  /**
   * Its address with `path` (default `/demo`, the instance path svc is given),
   * e.g. `http://127.0.0.1:41234/demo`. An arrow function: pass it as it is,
   * e.g. `useSpawnedSvc({ url: hostile.url })`.
   */
  readonly url: (path?: string) => string;
  /**
   * Timers a handler or a test starts (`setInterval`, `setTimeout`): each is
   * cleared after the test, so nothing keeps writing to a closed response.
   */
  readonly timers: Set<NodeJS.Timeout>;
}

/**
 * A hostile server on 127.0.0.1 (a free port) that hands every request to
 * `listener`, for the tests of one file. Registers the vitest hooks itself:
 * `beforeAll` starts it, `afterEach` clears {@link HostileServer.timers} (and
 * closes its connections with `closeConnectionsAfterEach`), `afterAll` closes
 * every connection and then the server.
 *
 * @param listener - The file's request handler; it records what it needs and
 *   answers, usually by calling a `handler` variable each test sets.
 * @param opts - How to make the server and whether to drop its connections
 *   after each test.
 */
export function useHostileServer(listener: Handler, opts: HostileServerOptions = {}): HostileServer {
  let server: Server | undefined;
  let port = 0;
  const timers = new Set<NodeJS.Timeout>();
  beforeAll(async () => {
    const s = opts.create ? await opts.create(listener) : createServer(listener);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    port = (s.address() as { port: number }).port;
    server = s;
  });
  afterEach(() => {
    for (const t of timers) clearInterval(t);
    timers.clear();
    if (opts.closeConnectionsAfterEach) server?.closeAllConnections();
  });
  afterAll(async () => {
    const s = server;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  });
  return {
    get server(): Server {
      if (!server) throw new Error('the hostile server is not started yet (read it in a test or a later hook)');
      return server;
    },
    get port(): number {
      return port;
    },
    url: (path = '/demo') => `${server instanceof TlsServer ? 'https' : 'http'}://127.0.0.1:${port}${path}`,
    timers,
  };
}

/** How svc ended: its exit code or the signal that killed it, its output, and how long it ran (ms from the spawn). */
export interface Ended<Out extends string | Buffer = string> {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** What svc wrote to stdout: text, or the raw bytes with `stdout: 'buffer'`; at most about `stdoutLimit` of it. */
  stdout: Out;
  stderr: string;
  ms: number;
}

/** A svc still running, from {@link SpawnedSvc.start}. */
export interface Running<Out extends string | Buffer = string> {
  child: ChildProcess;
  /** Resolves when svc has exited and its pipes are closed; rejects only when it could not be spawned. */
  ended: Promise<Ended<Out>>;
  /** What svc has written to stderr so far (for a test that waits on a message while svc still runs). */
  stderr: () => string;
}

/** How one svc is spawned. Given to {@link useSpawnedSvc}, they apply to every run; given to a run, they override those. */
export interface SpawnOptions {
  /** SVC_URL: a string, or a function read at each spawn (a server's port is known only once it started). */
  url?: string | (() => string);
  /** SVC_TOKEN (default {@link TOKEN}): a string, or a function read at each spawn. */
  token?: string | (() => string);
  /** svc is killed (SIGKILL) after this many ms if still running; the test then fails on how it ended. Default 15,000. */
  killMs?: number;
  /** More environment, after (and so over) the usual PATH, HOME, SVC_CONFIG_DIR, SVC_URL, SVC_TOKEN and NO_COLOR. Merged with the defaults' env. */
  env?: Record<string, string>;
  /** SVC_CONFIG_DIR: this directory instead of a fresh one under the system's temporary directory. */
  configDir?: string;
  /**
   * Keep only the start of an endless output: once this many characters
   * (bytes with `stdout: 'buffer'`) came, later chunks are dropped (the chunk
   * that crosses the limit is kept whole). Default: keep all.
   */
  stdoutLimit?: number;
  /**
   * Nobody reads svc's stdout until this settles (as `svc … | (sleep 3; cat)`):
   * the pipe fills and svc's writes wait. Default: read from the start.
   */
  holdStdoutUntil?: Promise<unknown>;
}

/** What every run of a file's svc shares: {@link SpawnOptions} (`url` required), and how stdout is kept. */
export interface SvcDefaults extends Omit<SpawnOptions, 'url' | 'holdStdoutUntil'> {
  url: string | (() => string);
  /** The prefix of each fresh config directory's name (default `s7-http-`). */
  configPrefix?: string;
  /** `text` (default): stdout as a string; `buffer`: the raw bytes, as svc wrote them. */
  stdout?: 'text' | 'buffer';
}

/** The svc of a test file, from {@link useSpawnedSvc}. */
export interface SpawnedSvc<Out extends string | Buffer> {
  /** Spawns svc with `args`; for a test that acts on it while it runs (a signal, waiting for a request). */
  start(args: string[], opts?: SpawnOptions): Running<Out>;
  /** Spawns svc with `args`; resolves when it has exited. */
  run(args: string[], opts?: SpawnOptions): Promise<Ended<Out>>;
}

/**
 * The built svc (`node bin/svc.js`, run in {@link root}) for the tests of one
 * file, with an environment of its own: PATH and HOME from the test's process,
 * SVC_CONFIG_DIR a fresh temporary directory each run, SVC_URL, SVC_TOKEN,
 * NO_COLOR=1, and `env`. stdin is closed; stdout and stderr are collected.
 * Registers an `afterEach` that kills (SIGKILL) every svc still running.
 *
 * @param defaults - What every run shares; a run's own options override them.
 *   With `stdout: 'buffer'` every run's stdout is a Buffer.
 */
export function useSpawnedSvc(defaults: SvcDefaults & { stdout: 'buffer' }): SpawnedSvc<Buffer>;
export function useSpawnedSvc(defaults: SvcDefaults & { stdout?: 'text' }): SpawnedSvc<string>;
export function useSpawnedSvc(defaults: SvcDefaults): SpawnedSvc<string> | SpawnedSvc<Buffer> {
  const children = new Set<ChildProcess>();
  afterEach(() => {
    for (const c of children) c.kill('SIGKILL');
    children.clear();
  });
  const value = (v: string | (() => string)): string => (typeof v === 'function' ? v() : v);
  const binary = defaults.stdout === 'buffer';

  function start(args: string[], opts: SpawnOptions = {}): Running<string | Buffer> {
    const t0 = Date.now();
    const child = spawn(process.execPath, [`${root}bin/svc.js`, ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        SVC_CONFIG_DIR: opts.configDir ?? defaults.configDir ?? mkdtempSync(join(tmpdir(), defaults.configPrefix ?? 's7-http-')),
        SVC_URL: value(opts.url ?? defaults.url),
        SVC_TOKEN: value(opts.token ?? defaults.token ?? TOKEN),
        NO_COLOR: '1',
        ...defaults.env,
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    const limit = opts.stdoutLimit ?? defaults.stdoutLimit ?? Infinity;
    const out: Buffer[] = [];
    let bytes = 0;
    let stdout = '';
    let stderr = '';
    const read = (): void => {
      child.stdout?.on('data', (c: Buffer) => {
        if (binary) {
          if (bytes >= limit) return;
          out.push(c);
          bytes += c.length;
        } else if (stdout.length < limit) stdout += c.toString();
      });
      child.stdout?.resume();
    };
    const hold = opts.holdStdoutUntil;
    if (hold) {
      child.stdout?.pause();
      void hold.then(read);
    } else read();
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.killMs ?? defaults.killMs ?? 15_000);
    const ended = new Promise<Ended<string | Buffer>>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        children.delete(child);
        resolve({ code, signal, stdout: binary ? Buffer.concat(out) : stdout, stderr, ms: Date.now() - t0 });
      });
    });
    return { child, ended, stderr: () => stderr };
  }

  return {
    start,
    run: (args: string[], opts?: SpawnOptions) => start(args, opts).ended,
  } as SpawnedSvc<string> | SpawnedSvc<Buffer>;
}

import { closeSync, fstatSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Deps, InStream, ProcessControl } from './deps.js';
import type { OutStream } from '../output/io.js';
import { isHelpBuild, NEEDS_FULL_BUILD } from './help-build.js';
import { holdOutputs, lazyOutput } from './stdout.js';
import { runExitHooks } from '../util/exit-hooks.js';

/**
 * The version baked in at build time, as src/version.ts has it; read here
 * directly so that `svc --version` loads no other module of svc.
 */
declare const SVC_VERSION: string;
const version: string = typeof SVC_VERSION === 'string' ? SVC_VERSION : '0.0.0-dev';

/**
 * node:os and node:tty are not in Node's snapshot (about 1 ms each to load):
 * required only when asked (a home directory no environment variable gives,
 * the TTY flag of standard input).
 */
let required: NodeJS.Require | undefined;
const lazyRequire = (id: string): unknown => (required ??= createRequire(import.meta.url))(id);
const homedir = (): string => (lazyRequire('node:os') as typeof import('node:os')).homedir();
const isatty = (fd: number): boolean => (lazyRequire('node:tty') as typeof import('node:tty')).isatty(fd);

/** The config directory: SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc. */
export function configDirFrom(env: NodeJS.ProcessEnv, home: () => string): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(home(), '.config'), 'svc');
}

/** The home directory as os.homedir() finds it: $HOME on POSIX (node:os loads only without it). */
function homeOf(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  return platform !== 'win32' && env.HOME ? env.HOME : homedir();
}

/** A failed write to standard output other than a closed pipe (reported once the command ends). */
let stdoutFailed: NodeJS.ErrnoException | undefined;

/** process.stdout, made on first use (see stdout.ts), with svc's handling of its errors. */
function stdoutStream(): NodeJS.WriteStream {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    // A closed pipe (svc … | head) is not an error: stop quietly.
    if (err.code === 'EPIPE') process.exit(0);
    if (terminalGone(err, process.stdout)) return;
    stdoutFailed ??= err;
  });
  return process.stdout;
}

/** process.stderr, with a terminal that hung up handled as its SIGHUP; any other failure as Node has it. */
function stderrStream(): NodeJS.WriteStream {
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (!terminalGone(err, process.stderr)) throw err;
  });
  return process.stderr;
}

/**
 * EIO writing to a terminal: the terminal hung up, and its SIGHUP may come after the write failed. It is
 * handled as that SIGHUP (a long command saves what it keeps and exits 130; any other ends by the signal),
 * not as a failed write, and the terminal's descriptors are closed at exit (hungUp).
 */
function terminalGone(err: NodeJS.ErrnoException, stream: NodeJS.WriteStream): boolean {
  if (err.code !== 'EIO' || !stream.isTTY) return false;
  hungUp();
  process.kill(process.pid, 'SIGHUP');
  return true;
}

const stdout = lazyOutput(1, stdoutStream);
const stderr = lazyOutput(2, stderrStream);

/** The real Deps: the only place svc touches `process`. */
export function processDeps(outputs: { stdout: OutStream; stderr: OutStream } = { stdout, stderr }): Deps {
  return {
    stdout: outputs.stdout,
    stderr: outputs.stderr,
    stdin: stdinStream(),
    env: process.env,
    now: () => Date.now(),
    configDir: configDirFrom(process.env, () => homeOf(process.env, process.platform)),
    nodeVersion: process.version,
    processes: processControl(),
  };
}

/**
 * Chunks of a stream that survives readers stopping early: leaving a
 * `for await` over process.stdin would destroy it, and the next prompt could
 * not read. Here a reader that stops only pauses the stream.
 */
async function* chunksOf(s: NodeJS.ReadStream): AsyncGenerator<Buffer | string> {
  const queue: (Buffer | string)[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const onData = (c: Buffer | string): void => {
    queue.push(c);
    wake?.();
  };
  const onEnd = (): void => {
    ended = true;
    wake?.();
  };
  let failed: NodeJS.ErrnoException | undefined;
  const onError = (err: NodeJS.ErrnoException): void => {
    failed = err;
    wake?.();
  };
  s.on('data', onData);
  s.on('end', onEnd);
  s.on('error', onError);
  s.resume();
  try {
    for (;;) {
      const next = queue.shift();
      if (next !== undefined) yield next;
      else if (failed) {
        // Standard input that cannot be read (open for writing only, a closed descriptor): one line, exit 2.
        const { UsageError } = await import('../errors.js');
        throw new UsageError(`cannot read standard input (${failed.code ?? failed.message}); give the input another way, or run svc with a readable standard input`);
      } else if (ended || s.readableEnded) return;
      else await new Promise<void>((r) => (wake = r));
    }
  } finally {
    s.off('data', onData);
    s.off('end', onEnd);
    s.off('error', onError);
    s.pause();
  }
}

/**
 * Standard input as svc reads it: chunks, TTY flag, raw mode for hidden
 * prompts. process.stdin is made only when something reads it: its stream
 * costs every command ~1 ms to build, and few commands read.
 */
function stdinStream(): InStream {
  let tty: boolean | undefined;
  const isTTY = (): boolean => (tty ??= isatty(0));
  return {
    get isTTY() {
      return isTTY();
    },
    get setRawMode() {
      return isTTY() ? (mode: boolean) => process.stdin.setRawMode(mode) : undefined;
    },
    [Symbol.asyncIterator]: () => chunksOf(process.stdin),
    pause: () => process.stdin.pause(),
  };
}

/** A process that has exited but was not reaped yet (Linux; elsewhere false). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * SIGTERM for a command that has no handler of its own: as Ctrl-C's
 * handlers end a command (the Exit codes table), one line and exit 130,
 * rather than death by the signal (143 in a shell, "terminated by signal" to
 * cron, systemd and Kubernetes). A command that handles it (ProcessControl's
 * onceSignal: export, sync, watch, bulk writes, sign-in, the sandbox) or holds
 * it back for a moment (holdSignals) keeps it: then this does nothing.
 */
const commandHandles = { SIGTERM: false, holding: 0, repeats: 0 };

let onSigterm: (() => void) | undefined;

/** Listens for SIGTERM (once per process, however many commands it runs); `code` is ExitCode.interrupted. */
function listenForSigterm(code: number): () => void {
  onSigterm ??= () => {
    if (commandHandles.SIGTERM || commandHandles.holding > 0) {
      // The command's own handler took the first (and the absorbing no-op of onceSignal the second): the third
      // ends svc at once, as it did when Node's default was the last listener, and as Ctrl-C pressed again does.
      if (!commandHandles.SIGTERM || ++commandHandles.repeats < 3) return;
      process.stderr.write('svc: SIGTERM again: stopping now\n');
      process.exit(code);
    }
    process.stderr.write('svc: interrupted by SIGTERM\n');
    process.exit(code);
  };
  if (!process.listeners('SIGTERM').includes(onSigterm)) process.on('SIGTERM', onSigterm);
  return onSigterm;
}

/**
 * SIGHUP: the terminal is gone. What svc still writes to it fails (EIO), no fault of the command's; and
 * at exit Node restores the modes of the terminal it started on, which a hung-up one refuses (Node then
 * aborts, after the exit listeners): the terminal's descriptors are closed before that.
 */
let hangUpNoted = false;

function hungUp(): void {
  // Once per process, however many commands it runs (tests run many).
  if (hangUpNoted) return;
  hangUpNoted = true;
  process.stderr.on('error', () => undefined);
  process.once('exit', () => {
    for (const fd of [0, 1, 2]) {
      try {
        if (fstatSync(fd).isCharacterDevice()) closeSync(fd);
      } catch {
        // closed already
      }
    }
  });
}

/** Signals and child processes from `process`; node:child_process loads only when used. */
export function processControl(): ProcessControl {
  return {
    pid: process.pid,
    execPath: process.execPath,
    platform: process.platform,
    async holdSignals(work, onHeld) {
      let held: 'SIGINT' | 'SIGTERM' | undefined;
      let repeats = 0;
      const listeners = new Map<'SIGINT' | 'SIGTERM', () => void>();
      commandHandles.holding++;
      let released = false;
      const release = (): void => {
        for (const [signal, fn] of listeners) process.off(signal, fn);
        listeners.clear();
        if (!released) commandHandles.holding--;
        released = true;
      };
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        const fn = (): void => {
          if (held) {
            // conf's writer (when-exit), once loaded, raises the first signal again at once: that repeat is absorbed,
            // as onceSignal absorbs it; asked again after it: stop now.
            if (++repeats < 2) return;
            release();
            process.kill(process.pid, signal);
            return;
          }
          held = signal;
          onHeld(signal);
        };
        listeners.set(signal, fn);
        process.on(signal, fn);
      }
      try {
        return await work();
      } finally {
        release();
        if (held) process.kill(process.pid, held);
      }
    },
    async defaultSignals(work) {
      // With no listener left, Node gives the signal back to the system's default action.
      const kept = (['SIGINT', 'SIGTERM'] as const).map((signal) => [signal, process.listeners(signal)] as const);
      for (const [signal] of kept) process.removeAllListeners(signal);
      try {
        return await work();
      } finally {
        for (const [signal, listeners] of kept) for (const fn of listeners) if (!process.listeners(signal).includes(fn)) process.on(signal, fn as () => void);
      }
    },
    async spawnQuiet(command, args) {
      const { spawn } = await import('node:child_process');
      return new Promise<boolean>((resolve) => {
        const child = spawn(command, [...args], { detached: true, stdio: 'ignore' });
        child.once('error', () => resolve(false));
        child.once('spawn', () => {
          child.unref();
          resolve(true);
        });
      });
    },
    async spawnPager(command, args, env) {
      const { spawn } = await import('node:child_process');
      const child = spawn(command, [...args], { stdio: ['pipe', 'inherit', 'inherit'], env: { ...env } });
      const started = await new Promise<boolean>((resolve) => {
        child.once('error', () => resolve(false));
        child.once('spawn', () => resolve(true));
      });
      if (!started) return undefined;
      return (text) =>
        new Promise<void>((resolve) => {
          // Ctrl-C while the pager runs is the pager's (less stops a search with it): svc waits for it to exit.
          const ignore = (): void => undefined;
          process.on('SIGINT', ignore);
          child.once('close', () => {
            process.off('SIGINT', ignore);
            resolve();
          });
          // The pager quit before reading everything (q in less): the rest is not wanted.
          child.stdin?.on('error', () => undefined);
          child.stdin?.end(text);
        });
    },
    // conf's atomic writer (when-exit) raises the signal again after its own cleanup; the
    // no-op absorbs that repeat so svc's orderly shutdown can finish (one place for every command).
    onceSignal: (signal, fn) => {
      if (signal === 'SIGTERM') commandHandles.SIGTERM = true;
      // One listener that stays registered: with process.once, the moment between its removal and a listener
      // added inside it left the signal at the system's default, and a repeat arriving then killed svc outright
      // (no exit hooks, its lock left behind).
      let fired = false;
      let repeats = 0;
      process.on(signal, () => {
        if (!fired) {
          fired = true;
          if (signal === 'SIGHUP') hungUp();
          fn();
          return;
        }
        // A SIGTERM again is onSigterm's to count. Otherwise the repeat right after is absorbed (conf re-raises
        // it); one more ends svc at once, exit 130, as a third SIGTERM does: process.exit runs the exit hooks,
        // so no lock file is left.
        if (signal === 'SIGTERM' || ++repeats < 2) return;
        process.stderr.write(`svc: interrupted by ${signal} (again: stopping now)\n`);
        process.exit(130);
      });
    },
    kill(pid, signal) {
      try {
        process.kill(pid, signal);
        return signal !== 0 || !isZombie(pid);
      } catch (err) {
        // EPERM: the process exists but belongs to someone else.
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
    async spawnDetached(command, args, opts) {
      const { spawn } = await import('node:child_process');
      const { closeSync, openSync } = await import('node:fs');
      const fd = openSync(opts.logFile, 'a', 0o600);
      try {
        const child = spawn(command, [...args], { detached: true, stdio: ['ignore', fd, fd], env: { ...opts.env } });
        child.on('error', () => undefined); // reported below as a missing pid
        child.unref();
        if (child.pid === undefined) throw new Error(`could not start ${command}`);
        return child.pid;
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Runs the command line; `svc --version` answers before the rest of svc loads (run() answers it too, for in-process callers). */
async function runCommand(argv: readonly string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    stdout.write(`${version}\n`);
    return 0;
  }
  const [{ run }, { ExitCode }, { noteStartupExtraCa }] = await Promise.all([
    import('./run.js'),
    import('../errors.js'),
    import('../http/startup-trust.js'),
  ]);
  noteStartupExtraCa(process.env.NODE_EXTRA_CA_CERTS);
  const sigterm = listenForSigterm(ExitCode.interrupted);
  // A process.exit() that cuts a command short (a closed stdout, SIGTERM a third time) still removes its lock files.
  if (!process.listeners('exit').includes(runExitHooks)) process.on('exit', runExitHooks);
  // The help build prints nothing before it knows it can finish (help-build.ts).
  const held = isHelpBuild ? holdOutputs(stdout, stderr) : undefined;
  // A command whose work can no longer finish (a promise nothing will settle: the event loop is empty) must not
  // end as a silent exit 0, which a script would take for success.
  const stranded = (): void => {
    process.stderr.write('svc: internal error: the command stopped with its work unfinished (nothing left to wait for); please report it\n');
    process.exit(ExitCode.failure);
  };
  process.on('beforeExit', stranded);
  let code: number;
  try {
    code = await run(argv, processDeps(held));
  } finally {
    process.off('beforeExit', stranded);
  }
  // The terminal hung up: a command that failed on its dead terminal (a write's EIO before the SIGHUP came)
  // was interrupted by the hang-up, as the one that saw the SIGHUP first says.
  if (hangUpNoted && code !== 0 && code !== NEEDS_FULL_BUILD) code = ExitCode.interrupted;
  if (code === NEEDS_FULL_BUILD) {
    // The whole program runs the command again, with a fallback of its own.
    process.off('SIGTERM', sigterm);
    return code;
  }
  held?.release();
  // An interrupted command has said so and saved what it keeps; work it abandoned (a write to a pipe
  // nobody reads, a FIFO nobody opened) must not keep the process alive.
  if (code === ExitCode.interrupted) process.exit(code);
  return code;
}

/** Entry point used by bin/svc.js. */
export async function main(argv: readonly string[]): Promise<number> {
  const code = await runCommand(argv);

  // A failed write is reported a tick later (even a synchronous one, to a file or device).
  await new Promise<void>((resolve) => setImmediate(resolve));
  // Output that did not all arrive (a full disk behind stdout) fails the command, in words.
  if (stdoutFailed && code === 0) {
    const { writeFailed } = await import('../util/io-error.js');
    process.stderr.write(`svc: ${writeFailed('standard output', stdoutFailed).message}\n`);
    return 1;
  }
  return code;
}

/** For callers that bring their own Deps (the build's code-cache warm-up). */
export { run } from './run.js';

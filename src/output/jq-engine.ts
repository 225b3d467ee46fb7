/**
 * The jq engine: jq 1.7 compiled to WebAssembly (the registry package jq-web),
 * run in a worker thread so that a program that never ends, or never stops
 * printing, can be stopped: each run has a time limit (the worker is
 * terminated), the worker's JavaScript heap (the input and jq's output) a
 * memory limit, and jq's own heap is capped at 2 GiB by the engine's build.
 *
 * Loaded only by `--jq` (src/output/jq.ts): no other command pays for it. The
 * engine is never bundled: the worker requires it from node_modules by the
 * path resolved here, and jq-web finds its jq.wasm beside its jq.js.
 */
import { SvcError, UsageError } from '../errors.js';
import { MAX_TIMER_MS } from '../util/duration.js';

/** How long one run of jq may take, and how much memory its worker's heap may use. */
export interface JqLimits {
  readonly timeoutMs: number;
  readonly heapMb: number;
}

export const defaultJqLimits: JqLimits = { timeoutMs: 30_000, heapMb: 1024 };

/**
 * The longest expression svc passes to jq, in UTF-8 bytes. jq-web copies its
 * arguments onto the program's 64 KiB stack, which a much longer one overflows.
 */
export const JQ_MAX_EXPRESSION_BYTES = 16 * 1024;

/** What one run printed: `text` is undefined when jq printed nothing; `stderr` is what `debug` and `stderr` wrote. */
export interface JqRun {
  readonly text: string | undefined;
  readonly stderr: string;
}

export interface JqRunOptions {
  /** One line a value (-c) instead of jq's two-space indent. */
  readonly compact: boolean;
  /** jq's colours (-C), else none (-M). */
  readonly color: boolean;
}

/** One jq engine (one worker), for one svc run; `close()` ends it. */
export interface JqEngine {
  /** Compiles `expr` (runs it on no input): a UsageError with jq's message when it does not compile. */
  check(expr: string): Promise<void>;
  /**
   * Runs `expr` over `input`, JSON text holding one or more values (each a
   * separate input, as jq reads a file), strings printed raw (jq -r).
   * A runtime error is an SvcError (exit 1), a compile error a UsageError.
   */
  run(input: string, expr: string, opts: JqRunOptions): Promise<JqRun>;
  close(): Promise<void>;
}

/** The expression as svc accepts it: a UsageError when it is too long or holds a NUL. */
export function checkJqExpression(expr: string): void {
  const bytes = Buffer.byteLength(expr, 'utf8');
  if (bytes > JQ_MAX_EXPRESSION_BYTES) {
    throw new UsageError(`--jq expression is ${bytes} bytes long; the limit is ${JQ_MAX_EXPRESSION_BYTES}`);
  }
  if (expr.includes('\0')) throw new UsageError('--jq expression holds a NUL character');
}

/**
 * The worker: loads jq-web (which compiles jq.wasm once), then runs each
 * request. jq-web hands back jq's standard error on failure, and prints it with
 * console.warn on success (`debug`, `stderr`): the console is captured so
 * that nothing reaches svc's streams but what svc writes.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
// V8's baseline compiler only: its optimising tier competes with svc for the CPU and, at
// a CLI's time scales, costs more than it gains (see the README's performance section).
try {
  require('node:v8').setFlagsFromString('--liftoff-only');
} catch {}
let stderr = '';
const capture = (...args) => {
  const text = typeof args[0] === 'string' && args[0].startsWith('%cstderr') ? String(args[4]) : args.map(String).join(' ');
  stderr += text.endsWith('\\n') ? text : text + '\\n';
};
console.log = console.info = console.warn = console.error = console.debug = console.trace = capture;
let engine;
try {
  engine = Promise.resolve(require(workerData.engine));
} catch (err) {
  engine = Promise.reject(err);
}
parentPort.on('message', async ({ id, input, expr, flags }) => {
  let jq;
  try {
    jq = await engine;
  } catch (err) {
    parentPort.postMessage({ id, ok: false, load: String((err && err.message) || err) });
    return;
  }
  stderr = '';
  try {
    const out = jq.raw(input, expr, flags);
    parentPort.postMessage({ id, ok: true, out: typeof out === 'string' ? out : null, stderr });
  } catch (err) {
    parentPort.postMessage({
      id,
      ok: false,
      exitCode: err && typeof err.exitCode === 'number' ? err.exitCode : null,
      stderr: err && typeof err.stderr === 'string' ? err.stderr : stderr,
      message: String((err && err.message) || err),
    });
  }
});
`;

interface Reply {
  readonly id: number;
  readonly ok: boolean;
  readonly out?: string | null;
  readonly stderr?: string;
  readonly exitCode?: number | null;
  readonly message?: string;
  readonly load?: string;
}

/** Text from jq made safe for one line of svc's stderr: no control characters, not endless. */
function oneLine(text: string, max = 400): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  if (flat.length <= max) return flat;
  // Not between the two halves of a surrogate pair.
  const cut = /[\ud800-\udbff]/.test(flat[max - 1] ?? '') ? max - 1 : max;
  return `${flat.slice(0, cut)}…`;
}

/** jq's "jq: error: …" lines of a compile error, without the source line it quotes. */
function compileMessage(stderr: string): string {
  const lines = stderr.split('\n');
  const errors = lines.filter((l) => l.startsWith('jq: error: ')).map((l) => l.slice('jq: error: '.length).replace(/:$/, ''));
  return oneLine(errors.length ? errors.join('; ') : (lines.find((l) => l.trim() && !/^jq: \d+ compile errors?$/.test(l)) ?? 'it does not compile'));
}

/** A runtime error line of jq ("jq: error (at inputString:0): …"), as its message. */
const RUNTIME_ERROR = /^jq: error \(at [^)]*\)(?::\s*)?/;

/** The same, anywhere in jq's standard error (an error's message may span lines: error("a\nb")). */
const RUNTIME_ERRORS = /(?:^|\n)jq: error \(at [^)\n]*\)(?::\s*)?/;

/**
 * jq's message for `input` with nothing left to read is "break" (jq 1.7's `input` is `first(inputs)`, and
 * the break escapes): svc hands jq one input, the whole output, or one record with -o ndjson.
 */
function explainRuntimeError(message: string): string {
  return message.trim() === 'break'
    ? 'no more inputs: svc gives jq one input (the whole output, or each record alone with -o ndjson), so `input` finds nothing; use `.`, or `[inputs]` for none'
    : message;
}

/** The message of a run that failed: jq's runtime errors, an input jq could not parse, or what jq wrote. */
function runtimeMessage(stderr: string): string {
  const errors = stderr.split(RUNTIME_ERRORS).slice(1).map(explainRuntimeError);
  if (errors.length) return oneLine(errors.length > 1 ? `${errors[0]} (and ${errors.length - 1} more)` : (errors[0] ?? ''));
  const lines = stderr.split('\n').filter((l) => l.trim());
  const parse = lines.find((l) => l.startsWith('jq: parse error: '));
  if (parse) return oneLine(`the input is not JSON jq can read: ${parse.slice('jq: parse error: '.length)}`);
  // halt_error: its message is the whole of standard error.
  return oneLine(lines.join(' ') || 'jq failed');
}

/** The error for a run that did not succeed (`checking`: the expression alone was run, on no input). */
function failure(reply: Reply, checking: boolean): SvcError {
  if (reply.load !== undefined) return new SvcError(`--jq: the jq engine (jq-web) could not be loaded: ${oneLine(reply.load)}`);
  const stderr = reply.stderr ?? '';
  if (reply.exitCode === 3) return new UsageError(`invalid --jq expression: ${compileMessage(stderr)}`);
  if (typeof reply.exitCode === 'number') return new SvcError(`--jq: ${runtimeMessage(stderr)}`);
  // No exit code: WebAssembly stopped (jq ran out of memory or stack and aborted).
  const why = /Aborted|out of bounds|call stack|memory/i.test(`${reply.message ?? ''} ${stderr}`)
    ? 'jq ran out of memory or stack'
    : `jq failed: ${oneLine(reply.message ?? stderr)}`;
  return checking ? new UsageError(`invalid --jq expression: ${why} compiling it (is it nested too deeply?)`) : new SvcError(`--jq: ${why}`);
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

type Worker = import('node:worker_threads').Worker;

/** A jq engine in a worker thread, started on first use; a run that fails or overruns ends the worker. */
export function createJqEngine(limits: Partial<JqLimits> = {}): JqEngine {
  const { timeoutMs, heapMb } = { ...defaultJqLimits, ...limits };
  let worker: Promise<Worker> | undefined;
  let seq = 0;

  const start = async (): Promise<Worker> => {
    const [{ Worker }, { createRequire }] = await Promise.all([import('node:worker_threads'), import('node:module')]);
    let engine: string;
    try {
      engine = createRequire(import.meta.url).resolve('jq-web');
    } catch (err) {
      throw new SvcError(`--jq: the jq engine (the package jq-web) is not installed beside svc: reinstall svc (${oneLine((err as Error).message, 120)})`);
    }
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { engine },
      // The worker sees no environment (jq's $ENV is the engine's own, not svc's with its tokens).
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      stdout: true,
      stderr: true,
    });
    w.stdout.resume();
    w.stderr.resume();
    w.unref();
    return w;
  };
  const discard = (): void => {
    const w = worker;
    worker = undefined;
    void w?.then((x) => x.terminate()).catch(() => undefined);
  };

  const call = async (input: string, expr: string, flags: readonly string[], checking: boolean): Promise<JqRun> => {
    checkJqExpression(expr);
    const w = await (worker ??= start());
    const id = ++seq;
    w.ref();
    const reply = await new Promise<Reply>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
      };
      const onMessage = (m: Reply): void => {
        if (m.id !== id) return;
        done();
        resolve(m);
      };
      const onError = (err: Error & { code?: string }): void => {
        done();
        discard();
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new SvcError(`--jq: jq's input and output outgrew the ${heapMb} MB it may use; filter the records first (--filter, --fields), or use -o ndjson`)
            : new SvcError(`--jq: the jq engine failed: ${oneLine(err.message)}`),
        );
      };
      const onExit = (): void => {
        done();
        discard();
        reject(new SvcError('--jq: the jq engine stopped unexpectedly'));
      };
      const timer = setTimeout(
        () => {
          done();
          discard();
          reject(new SvcError(`--jq: jq did not finish within ${duration(timeoutMs)} and was stopped; set SVC_JQ_TIMEOUT for a longer limit`));
        },
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      w.postMessage({ id, input, expr, flags: [...flags] });
    }).finally(() => w.unref());
    if (!reply.ok) {
      discard();
      throw failure(reply, checking);
    }
    const stderr = reply.stderr ?? '';
    // jq's exit status tells only whether the last input failed: an error on an earlier one is in its stderr.
    if (stderr.split('\n').some((l) => RUNTIME_ERROR.test(l))) throw new SvcError(`--jq: ${runtimeMessage(stderr)}`);
    return { text: reply.out ?? undefined, stderr };
  };

  return {
    async check(expr) {
      await call('', expr, ['-M'], true);
    },
    run: (input, expr, opts) => call(input, expr, [opts.color ? '-C' : '-M', '-r', ...(opts.compact ? ['-c'] : [])], false),
    async close() {
      const w = worker;
      worker = undefined;
      await w?.then((x) => x.terminate()).catch(() => undefined);
    },
  };
}

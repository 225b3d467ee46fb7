/**
 * The jq engine: jq 1.7 compiled to WebAssembly (the registry package jq-web),
 * run in a worker thread so that a program that never ends, or never stops
 * printing, can be stopped: each run has a time limit (the worker is
 * terminated), jq's output and what it writes to stderr limits of their own
 * (the worker stops jq past them), the worker's JavaScript heap (the input) a
 * memory limit, and jq's own heap is capped at 2 GiB by the engine's build.
 *
 * Loaded only by `--jq` (src/output/jq.ts): no other command pays for it. The
 * engine is never bundled: the worker requires it from node_modules by the
 * path resolved here, and jq-web finds its jq.wasm beside its jq.js.
 */
import { randomUUID } from 'node:crypto';
import { SvcError, UsageError } from '../errors.js';
import { MAX_TIMER_MS } from '../util/duration.js';
import { ACTING } from '../util/shown.js';

/**
 * How long one run of jq may take, how much memory its worker's heap (the input) may use, and how much one
 * run may print: `outputMb` on stdout, `stderrMb` with `debug` and `stderr` (which svc reads as text).
 */
export interface JqLimits {
  readonly timeoutMs: number;
  readonly heapMb: number;
  readonly outputMb: number;
  readonly stderrMb: number;
}

export const defaultJqLimits: JqLimits = { timeoutMs: 30_000, heapMb: 1024, outputMb: 1024, stderrMb: 64 };

/**
 * The longest expression svc passes to jq, in UTF-8 bytes. jq-web copies its
 * arguments onto the program's 64 KiB stack, which a much longer one overflows.
 */
export const JQ_MAX_EXPRESSION_BYTES = 16 * 1024;

/** What one run printed, and what `debug` and `stderr` wrote (each line ending in a newline; '' for nothing). */
export interface JqRun {
  /** jq's output as UTF-8 bytes, in pieces (output far larger than one string can hold comes whole); [] for none. */
  readonly output: readonly Uint8Array[];
  /** The output as text without its last newline, undefined when jq printed nothing (for small outputs). */
  readonly text: string | undefined;
  readonly stderr: string;
  /** With `each`: jq halted (`halt`, `halt_error(0)`), so the elements after the one it halted on were not run. */
  readonly halted: boolean;
}

/**
 * A run that failed, with what `debug` and `stderr` wrote before it did (written before the error, as jq
 * does) and, for an error jq reported itself (not a limit or a crash), what it printed before it.
 */
export class JqRunError extends SvcError {
  constructor(
    message: string,
    readonly stderr: string,
    readonly output: readonly Uint8Array[] = [],
  ) {
    super(message);
  }
}

export interface JqRunOptions {
  /** One line a value (-c) instead of jq's two-space indent. */
  readonly compact: boolean;
  /** jq's colours (-C), else none (-M). */
  readonly color: boolean;
  /** Strings raw, as `jq -r` prints them (the default); false: every output as JSON, as `jq` alone prints it. */
  readonly raw?: boolean;
  /**
   * The input is one JSON array, and the expression runs on each of its elements in turn, each alone
   * (`input` and `inputs` see no other): jq stops at the first that fails or halts, and the run says
   * whether it halted.
   */
  readonly each?: boolean;
}

/** One jq engine (one worker), for one svc run; `close()` ends it. */
export interface JqEngine {
  /**
   * Compiles `expr` (runs it on no input): a UsageError with jq's message when it does not compile, or when
   * it starts with a `module` directive (svc runs no modules, and runs an expression inside one of its own).
   */
  check(expr: string): Promise<void>;
  /**
   * Runs `expr` over `input`, JSON text holding one or more values (each a
   * separate input, as jq reads a file), strings printed raw (jq -r) unless
   * `raw` is false; with `each`, over each element of one array.
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

/** A `module` directive at the start of an expression, after blanks and comments (jq's end at a line feed). */
const MODULE_DIRECTIVE = /^(?:\s|#[^\n]*(?:\n|$))*module(?![A-Za-z0-9_])/;

/**
 * The program that runs `expr` on each element of one array, alone, and then writes `end` to stderr: jq
 * halted when that is missing from a run that succeeded. The expression's leading `def`s are an expression
 * in parentheses too (jq 1.7); it stays on the first line ($__loc__), and a comment it ends with ends at the
 * line feed after it.
 */
function eachProgram(expr: string, end: string): string {
  return `(.[] | (${expr}\n\n)), (${JSON.stringify(end)} | stderr | empty)`;
}

/**
 * The expression as jq's program argument: jq takes an argument that starts with '-' for an option of its
 * own (`--help`, `-n`, `--arg` …), so one that does gets a leading blank, which jq's parser skips (`-.count`
 * and `-1` stay expressions; `--help` is then one that does not compile).
 */
function asProgram(expr: string): string {
  return expr.startsWith('-') ? ` ${expr}` : expr;
}

/** The exit codes of a worker that stopped jq because it printed more than its limit. */
const OVER_OUTPUT = 20;
const OVER_STDERR = 21;

/**
 * The worker: loads jq-web (which compiles jq.wasm once), then runs each
 * request. jq-web collects jq's stdout and stderr one byte an element of an
 * array, which V8 cannot grow past ~113M elements (it aborts the process):
 * the worker loads jq-web's glue with those two pushes sent to collectors of
 * its own instead, which keep the bytes in chunks up to a limit and, past it,
 * end the worker (an exception from there would reach jq as a failed write,
 * and jq would go on). NUL bytes are kept (jq-web's glue drops them, where
 * `jq -r` writes them: only a missing byte, which emscripten's older flush
 * passed as null, is no byte). What
 * jq-web's glue prints itself (emscripten's "Aborted(…)") is captured from
 * the console, so that nothing reaches svc's streams but what svc writes.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
// V8's baseline compiler only: its optimising tier competes with svc for the CPU and, at
// a CLI's time scales, costs more than it gains (see the README's performance section).
try {
  require('node:v8').setFlagsFromString('--liftoff-only');
} catch {}
let notes = '';
const capture = (...args) => {
  notes += args.map(String).join(' ') + String.fromCharCode(10);
};
console.log = console.info = console.warn = console.error = console.debug = console.trace = capture;
let id = 0;
function collector(limit, overCode) {
  let chunks = [];
  let chunk = new Uint8Array(0);
  let at = 0;
  let used = 0;
  let size = 16384;
  const next = () => {
    if (at) chunks.push(chunk);
    used += at;
    at = 0;
    if (used >= limit) {
      // What debug wrote so far goes first (as a message before the worker ends); the exit code says why.
      if (overCode === ${OVER_OUTPUT}) {
        const e = err.take();
        parentPort.postMessage({ id, ok: false, over: overCode, err: e }, e.map((c) => c.buffer));
      }
      process.exit(overCode);
    }
    chunk = new Uint8Array(Math.min(size, limit - used));
    size = Math.min(size * 2, 8388608);
  };
  return {
    put(c) {
      if (at === chunk.length) next();
      chunk[at++] = c;
    },
    take() {
      const all = chunks;
      if (at) all.push(chunk.slice(0, at));
      chunks = [];
      chunk = new Uint8Array(0);
      at = 0;
      used = 0;
      size = 16384;
      return all;
    },
  };
}
const out = collector(workerData.outputBytes, ${OVER_OUTPUT});
const err = collector(workerData.stderrBytes, ${OVER_STDERR});
const PUSHES = [
  ['if (c) outBuffer.push(c)', 'if (c !== null && c !== undefined) __svcOut(c)'],
  ['if (c) errBuffer.push(c)', 'if (c !== null && c !== undefined) __svcErr(c)'],
];
function load(file) {
  const { readFileSync } = require('node:fs');
  const { dirname } = require('node:path');
  const { createRequire } = require('node:module');
  let source = readFileSync(file, 'utf8');
  for (const [from, to] of PUSHES) {
    if (source.split(from).length !== 2) throw new Error('this version of jq-web (' + file + ') is not the one svc was made for: reinstall svc');
    source = source.replace(from, to);
  }
  const wrapped = require('node:vm').runInThisContext('(function (exports, require, module, __filename, __dirname, __svcOut, __svcErr) {' + source + '\\n})', { filename: file });
  const m = { exports: {} };
  wrapped.call(m.exports, m.exports, createRequire(file), m, file, dirname(file), out.put, err.put);
  return m.exports;
}
let engine;
try {
  engine = Promise.resolve(load(workerData.engine));
} catch (e) {
  engine = Promise.reject(e);
}
parentPort.on('message', async (m) => {
  let jq;
  try {
    jq = await engine;
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, load: String((e && e.message) || e) });
    return;
  }
  id = m.id;
  notes = '';
  out.take();
  err.take();
  try {
    jq.raw(m.input, m.expr, m.flags);
    const o = out.take();
    const e = err.take();
    parentPort.postMessage({ id, ok: true, out: o, err: e, notes }, [...o, ...e].map((c) => c.buffer));
  } catch (x) {
    const o = out.take();
    const e = err.take();
    parentPort.postMessage(
      { id, ok: false, exitCode: x && typeof x.exitCode === 'number' ? x.exitCode : null, out: o, err: e, notes, message: String((x && x.message) || x) },
      [...o, ...e].map((c) => c.buffer),
    );
  }
});
`;

interface Reply {
  readonly id: number;
  readonly ok: boolean;
  /** jq's stdout and stderr, in chunks. */
  readonly out?: readonly Uint8Array[];
  readonly err?: readonly Uint8Array[];
  /** What jq-web's glue printed itself (emscripten's "Aborted(…)"). */
  readonly notes?: string;
  readonly exitCode?: number | null;
  readonly message?: string;
  readonly load?: string;
  /** The worker stops jq: its output passed the limit (OVER_OUTPUT). */
  readonly over?: number;
}

/** Runs of the characters that act on a terminal (src/util/shown.ts), each made one space. */
const ACTING_RUNS = new RegExp(`(?:${ACTING.source})+`, 'g');

/** Text from jq made safe for one line of svc's stderr: no control, bidi or line-breaking characters, not endless. */
function oneLine(text: string, max = 400): string {
  const flat = text.replace(ACTING_RUNS, ' ').trim();
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

/**
 * Where jq's runtime error starts ("jq: error (at inputString:0): …"), what follows it its message: at the
 * start of a line, or after what `stderr` wrote without a newline.
 */
const RUNTIME_ERROR = /jq: error \(at [^)]*\)(?::\s*)?/;
const PARSE_ERROR = 'jq: parse error: ';
/** jq's own messages otherwise ("jq: error: cannot allocate memory" before it aborts). */
const JQ_MESSAGE = 'jq: error: ';
/** A line `debug` writes. */
const DEBUG_LINE = '["DEBUG:",';

/**
 * jq's standard error taken apart: jq's runtime errors (an error's message may span lines: error("a\nb");
 * it ends at the next line of debug or of jq's), its parse error, its other messages, and the rest, what
 * `debug` and `stderr` wrote (`halt_error`'s message among it), as lines.
 */
interface JqStderr {
  readonly errors: readonly string[];
  readonly parse: string | undefined;
  readonly own: readonly string[];
  readonly rest: readonly string[];
}

function splitStderr(stderr: string): JqStderr {
  const lines = stderr.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const errors: string[] = [];
  const own: string[] = [];
  const rest: string[] = [];
  let parse: string | undefined;
  let inError = false;
  for (const line of lines) {
    const error = line.startsWith(DEBUG_LINE) ? null : RUNTIME_ERROR.exec(line);
    if (error) {
      if (error.index > 0) rest.push(line.slice(0, error.index));
      errors.push(line.slice(error.index + error[0].length));
      inError = true;
    } else if (line.startsWith(PARSE_ERROR)) {
      parse ??= line.slice(PARSE_ERROR.length);
      inError = false;
    } else if (line.startsWith(JQ_MESSAGE)) {
      own.push(line.slice(JQ_MESSAGE.length));
      inError = false;
    } else if (inError && !line.startsWith(DEBUG_LINE)) {
      errors[errors.length - 1] += `\n${line}`;
    } else {
      inError = false;
      rest.push(line);
    }
  }
  return { errors, parse, own, rest };
}

/** Lines as written to stderr: each ending in a newline. */
function linesText(lines: readonly string[]): string {
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/**
 * jq's message for `input` with nothing left to read is "break" (jq 1.7's `input` is `first(inputs)`, and
 * the break escapes): svc hands jq one input, the whole output, or one record with -o ndjson.
 */
function explainRuntimeError(message: string): string {
  return message.trim() === 'break'
    ? 'no more inputs: svc gives jq one input (the whole output, or each record alone with -o ndjson), so `input` finds nothing; use `.`, or `[inputs]` for none'
    : message;
}

/**
 * The error of a run that failed: jq's runtime errors, an input jq could not parse, or (halt_error) what jq
 * wrote but debug lines; it carries what `debug` and `stderr` wrote, for svc to write before it.
 */
function runtimeError(stderr: JqStderr): JqRunError {
  const { errors, parse, own, rest } = stderr;
  if (errors.length) {
    const first = explainRuntimeError(errors[0] ?? '');
    return new JqRunError(`--jq: ${oneLine(errors.length > 1 ? `${first} (and ${errors.length - 1} more)` : first)}`, linesText(rest));
  }
  if (parse !== undefined) return new JqRunError(`--jq: ${oneLine(`the input is not JSON jq can read: ${parse}`)}`, linesText(rest));
  // halt_error: its message is what jq wrote (but for debug's lines, written before it); else jq's own.
  const debug = rest.filter((l) => l.startsWith(DEBUG_LINE));
  const message = rest.filter((l) => !l.startsWith(DEBUG_LINE) && l.trim());
  return new JqRunError(`--jq: ${oneLine((message.length ? message : own).join(' ') || 'jq failed')}`, linesText(debug));
}

function mb(n: number): string {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024} GB` : `${n} MB`;
}

/** The error for a run that did not succeed (`checking`: the expression alone was run, on no input). */
function failure(reply: Reply, limits: JqLimits, checking: boolean): SvcError {
  if (reply.load !== undefined) return new SvcError(`--jq: the jq engine (jq-web) could not be loaded: ${oneLine(reply.load)}`);
  const stderr = textOf(reply.err);
  if (reply.over !== undefined) return overError(reply.over, limits, linesText(splitStderr(stderr).rest));
  // Exit status 3 is a compile error, or halt_error(3) (which does not say "N compile errors").
  if (reply.exitCode === 3 && /^jq: \d+ compile errors?$/m.test(stderr)) return new UsageError(`invalid --jq expression: ${compileMessage(stderr)}`);
  if (typeof reply.exitCode === 'number') return runtimeError(splitStderr(stderr));
  // No exit code: WebAssembly stopped (jq ran out of memory or stack and aborted).
  const why = /Aborted|out of bounds|call stack|memory/i.test(`${reply.message ?? ''} ${reply.notes ?? ''} ${stderr}`)
    ? 'jq ran out of memory or stack'
    : `jq failed: ${oneLine(reply.message ?? stderr)}`;
  return checking ? new UsageError(`invalid --jq expression: ${why} compiling it (is it nested too deeply?)`) : new JqRunError(`--jq: ${why}`, linesText(splitStderr(stderr).rest));
}

/** The error for a run the worker stopped because jq printed more than its limit (`code`: its exit code). */
function overError(code: number, limits: JqLimits, stderr = ''): JqRunError {
  return code === OVER_OUTPUT
    ? new JqRunError(
        `--jq: jq's output passed ${mb(limits.outputMb)}, the most svc holds for one run, and jq was stopped; print less (select in the expression, or --filter, --fields), or use -o ndjson`,
        stderr,
      )
    : new JqRunError(`--jq: what debug and stderr wrote passed ${mb(limits.stderrMb)}, the most svc reads, and jq was stopped; debug less`, '');
}

/** UTF-8 chunks as text. */
function textOf(chunks: readonly Uint8Array[] | undefined): string {
  return chunks?.length ? Buffer.concat(chunks).toString('utf8') : '';
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

type Worker = import('node:worker_threads').Worker;

/** A jq engine in a worker thread, started on first use; a run that fails or overruns ends the worker. */
export function createJqEngine(limits: Partial<JqLimits> = {}): JqEngine {
  const all: JqLimits = { ...defaultJqLimits, ...limits };
  const { timeoutMs, heapMb } = all;
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
      workerData: { engine, outputBytes: Math.floor(all.outputMb * 2 ** 20), stderrBytes: Math.floor(all.stderrMb * 2 ** 20) },
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

  const call = async (input: string, expr: string, flags: readonly string[], checking: boolean, each = false): Promise<JqRun> => {
    checkJqExpression(expr);
    const end = each ? `svc-end-${randomUUID()}` : undefined;
    // jq reads an argument that starts with '-' as an option of its own (--help, -n, --arg …): the program never does.
    const program = end === undefined ? asProgram(expr) : eachProgram(expr, end);
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
            ? new SvcError(`--jq: jq's input outgrew the ${heapMb} MB it may use; filter the records first (--filter, --fields), or use -o ndjson`)
            : new SvcError(`--jq: the jq engine failed: ${oneLine(err.message)}`),
        );
      };
      const onExit = (code: number): void => {
        done();
        discard();
        reject(code === OVER_OUTPUT || code === OVER_STDERR ? overError(code, all) : new SvcError('--jq: the jq engine stopped unexpectedly'));
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
      w.postMessage({ id, input, expr: program, flags: [...flags] });
    }).finally(() => w.unref());
    const output = reply.out ?? [];
    if (!reply.ok) {
      discard();
      const err = failure(reply, all, checking);
      // An error jq reported itself (it exited): what it printed before it is whole values.
      throw err instanceof JqRunError && typeof reply.exitCode === 'number' && output.length ? new JqRunError(err.message, err.stderr, output) : err;
    }
    let errText = textOf(reply.err);
    let halted = false;
    if (end !== undefined) {
      if (errText.endsWith(end)) errText = errText.slice(0, -end.length);
      else halted = true;
    }
    const stderr = splitStderr(errText);
    // jq's exit status tells only whether the last input failed: an error on an earlier one is in its stderr.
    if (stderr.errors.length) {
      const err = runtimeError(stderr);
      throw new JqRunError(err.message, err.stderr, output);
    }
    return {
      output,
      get text() {
        return output.length ? textOf(output).replace(/\n$/, '') : undefined;
      },
      stderr: linesText(stderr.rest),
      halted,
    };
  };

  return {
    async check(expr) {
      await call('', expr, ['-M'], true);
      if (MODULE_DIRECTIVE.test(expr)) throw new UsageError('invalid --jq expression: svc runs no jq modules, so it takes no `module` directive; leave it out');
    },
    run: (input, expr, opts) => call(input, expr, [opts.color ? '-C' : '-M', ...(opts.raw === false ? [] : ['-r']), ...(opts.compact ? ['-c'] : [])], false, opts.each),
    async close() {
      const w = worker;
      worker = undefined;
      await w?.then((x) => x.terminate()).catch(() => undefined);
    },
  };
}

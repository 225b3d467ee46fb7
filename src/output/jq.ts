/**
 * `--jq EXPR`: JSON output filtered through jq before it is written, the one
 * place svc applies it (src/output/write.ts hands views here). With -o json
 * the expression gets the whole value (every record of `query --all` as one
 * array); with -o ndjson it gets each record in turn, alone, and a `halt`
 * ends the run. What jq prints is written as `jq -r` writes it: strings raw,
 * one output a line; on a terminal its JSON with what would act on the
 * terminal as \uXXXX escapes, as -o json writes it there, and its raw strings
 * without those characters, as a table shows them.
 */
import { StringDecoder } from 'node:string_decoder';
import { SvcError, UsageError } from '../errors.js';
import { ACTING } from '../util/shown.js';
import { drained } from './drain.js';
import { checkJqFormat, type OutputFormat } from './format.js';
import type { OutStream } from './io.js';
import { createJqEngine, JqRunError, type JqEngine, type JqLimits, type JqRun } from './jq-engine.js';
import { terminalJson } from './json-text.js';
import type { Row, View } from './view.js';

export { checkJqExpression, createJqEngine, defaultJqLimits, JQ_MAX_EXPRESSION_BYTES, type JqEngine, type JqLimits } from './jq-engine.js';

/** How `--jq` writes: the expression, the engine it runs in, and where jq's own messages go. */
export interface JqSettings {
  readonly expr: string;
  /** The engine of this run (one worker, reused); absent: one made for the call and closed after it. */
  readonly engine?: JqEngine;
  /** Limits for an engine made for the call. */
  readonly limits?: Partial<JqLimits>;
  /** jq's colours (a terminal, colour allowed). */
  readonly color?: boolean;
  /** Where `debug` and `stderr` in the expression write (default: nowhere). */
  readonly stderr?: OutStream;
}

/** Records handed to jq at once with -o ndjson: at most this many, or fewer when the next would wait for the service. */
const BATCH_ROWS = 1000;
const BATCH_CHARS = 4 << 20;

/**
 * An expression that can halt names `halt` or `halt_error` (jq calls no function by a name it computes, and
 * no other builtin halts): with -o ndjson it runs on each record before the next is asked for, which costs a
 * run of jq a record.
 */
const HALTS = /\bhalt(?:_error)?\b/;

/** What jq printed, as it printed it (in pieces: it may be far more than one string holds), ending in a newline. */
async function write(out: OutStream, output: readonly Uint8Array[]): Promise<void> {
  for (const chunk of output) if (!out.write(chunk)) await drained(out);
  const last = output.at(-1);
  if (last && last[last.length - 1] !== 0x0a && !out.write('\n')) await drained(out);
}

// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * A string jq printed raw, for a terminal: its line feeds and tabs kept, its other line breaks (CR, CRLF,
 * U+2028/9) line feeds, and the other characters that would act on the terminal (C0, DEL, C1, bidi
 * controls) dropped, as a table drops them.
 */
function terminalRaw(text: string): string {
  return text.replace(/\r\n|[\r\u2028\u2029]/g, '\n').replace(ACTING, (ch) => (ch === '\n' || ch === '\t' ? ch : ''));
}

/**
 * A line of what jq printed as JSON (not raw), for a terminal. A top-level string is one line that starts
 * with its quote (colours aside; lines inside an indented value start with blanks, or with the closing
 * bracket): it is written raw, as `jq -r` writes it, through terminalRaw. Anything else is JSON text, through
 * terminalJson (its colours are C0 escapes, which stay).
 */
function terminalLine(line: string): string {
  const plain = line.includes('\u001b') ? line.replace(SGR, '') : line;
  if (plain.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(plain);
      if (typeof value === 'string') return terminalRaw(value);
    } catch {
      // Not one whole string: JSON text.
    }
  }
  return terminalJson(line);
}

/** What jq printed as JSON (`raw: false`), written for a terminal line by line (see terminalLine), ending in a newline. */
async function writeTerminal(out: OutStream, output: readonly Uint8Array[]): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const put = async (lines: string): Promise<void> => {
    if (!out.write(lines.split('\n').map(terminalLine).join('\n'))) await drained(out);
  };
  try {
    for (const chunk of output) {
      const text = rest + decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        rest = text;
        continue;
      }
      rest = text.slice(end + 1);
      await put(text.slice(0, end + 1));
    }
    rest += decoder.end();
  } catch (err) {
    if (!(err instanceof RangeError && /string length/i.test(err.message))) throw err;
    throw new SvcError('--jq: one line of what jq printed is longer than a terminal can be shown (512 MB); write it to a file or a pipe');
  }
  if (rest) await put(`${rest}\n`);
}

/**
 * Runs the expression over JSON text and writes what it printed, and what it wrote to stderr. When the run
 * fails, what `debug` and `stderr` wrote before it is written all the same (before svc's error line), as jq
 * does; with `each` (one array, each record alone), what jq printed for the records before the failing one
 * too, as it would be had they come in an earlier batch. On a terminal jq prints JSON, which is written for
 * the terminal (writeTerminal). Returns whether jq halted (with `each`).
 */
async function apply(out: OutStream, json: string, compact: boolean, s: JqSettings, engine: JqEngine, each = false): Promise<boolean> {
  const terminal = out.isTTY === true;
  const put = (output: readonly Uint8Array[]): Promise<void> => (terminal ? writeTerminal(out, output) : write(out, output));
  let r: JqRun;
  try {
    r = await engine.run(json, s.expr, { compact, color: s.color ?? false, raw: !terminal, each });
  } catch (err) {
    if (err instanceof JqRunError) {
      if (err.stderr) s.stderr?.write(err.stderr);
      if (each && err.output.length) await put(err.output);
    }
    throw err;
  }
  if (r.stderr) s.stderr?.write(r.stderr);
  await put(r.output);
  return r.halted;
}

/** With an engine of its own when the settings bring none. */
async function withEngine<T>(s: JqSettings, fn: (engine: JqEngine) => Promise<T>): Promise<T> {
  if (s.engine) return fn(s.engine);
  const engine = createJqEngine(s.limits);
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

/** JSON text of a value (`undefined` is null, as JSON has no such value). */
function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/**
 * Filters JSON through the expression and writes the result to `out`: for
 * `svc api` and anything else that has a body rather than a view. `input` is
 * JSON text (one value or several, each an input to the expression) or a
 * value, which is written as JSON first. Output is pretty JSON, or one line a
 * value with `compact`; strings raw. A compile error is a UsageError (exit 2),
 * a runtime error an SvcError (exit 1): both carry jq's message on one line.
 */
export async function writeJq(out: OutStream, input: string | unknown, s: JqSettings & { readonly compact?: boolean }): Promise<void> {
  const json = typeof input === 'string' ? input : jsonText(input);
  await withEngine(s, (engine) => apply(out, json, s.compact ?? false, s, engine));
}

/**
 * ndjson: the expression runs on each record alone (`input` and `inputs` see
 * no other), whatever batch it came in. Records go to jq in batches of those
 * already at hand, one array a batch, so output follows the pages as they
 * come. When jq halts (`halt`, `halt_error(0)`), the run ends there: no
 * record after it is printed, and, as an expression that can halt runs on
 * each record before the next is asked for, no page after it is fetched.
 */
async function applyEach(out: OutStream, rows: Iterable<Row> | AsyncIterable<Row>, s: JqSettings, engine: JqEngine): Promise<void> {
  const paged = Symbol.asyncIterator in rows;
  const it = paged ? rows[Symbol.asyncIterator]() : (rows as Iterable<Row>)[Symbol.iterator]();
  const oneByOne = paged && HALTS.test(s.expr);
  let batch: string[] = [];
  let chars = 0;
  /** Runs jq on the batch: true when it halted. */
  const flush = async (): Promise<boolean> => {
    if (batch.length === 0) return false;
    const json = `[${batch.join(',')}]`;
    batch = [];
    chars = 0;
    return apply(out, json, true, s, engine, true);
  };
  let halted = false;
  for (;;) {
    const pending = Promise.resolve(it.next());
    // The next record is not there yet (a page is on its way): write what jq makes of those at hand first.
    if (batch.length > 0 && (await Promise.race([pending.then(() => false), new Promise<boolean>((r) => setImmediate(() => r(true)))]))) {
      // The page on its way is not read when jq fails or halts: its failure is nobody's.
      const stop = await flush().catch((err: unknown) => {
        pending.catch(() => undefined);
        throw err;
      });
      if (stop) {
        pending.catch(() => undefined);
        return;
      }
    }
    const next = await pending;
    if (next.done) break;
    const text = jsonText(next.value);
    batch.push(text);
    chars += text.length;
    if ((oneByOne || batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) && (await flush())) {
      halted = true;
      break;
    }
  }
  if (halted) await Promise.resolve(it.return?.()).catch(() => undefined);
  else await flush();
}

async function collect(rows: Iterable<Row> | AsyncIterable<Row>): Promise<Row[]> {
  const all: Row[] = [];
  for await (const r of rows) all.push(r);
  return all;
}

/**
 * The most JSON text svc hands jq at once ("512 MB"): the longest string V8 holds, 2^29 − 24 characters. A
 * body read for jq (`svc api --jq`) stops at this many bytes, which decode to at most as many characters.
 */
export const JQ_MAX_INPUT_CHARS = 2 ** 29 - 24;

/**
 * The records as one JSON array for jq. A string holds at most 2^29 - 24 characters (V8), which is the most
 * svc can hand jq at once.
 */
function recordsJson(rows: Row[]): string {
  try {
    return JSON.stringify(rows);
  } catch (err) {
    if (!(err instanceof RangeError && /string length/i.test(err.message))) throw err;
    throw new SvcError('--jq: the records come to more than 512 MB of JSON, the most svc hands jq at once; use -o ndjson (jq gets each record alone), or fewer records or fields (--filter, --fields)');
  }
}

/** The JSON of a text view, which --print-request and --explain write; a UsageError for prose. */
function textJson(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    throw new UsageError('--jq filters JSON output, and this command prints text; leave out --jq');
  }
}

/**
 * Writes a view through the expression (json or ndjson; checkJqFormat first).
 * The records of a json view are collected and filtered as one array.
 */
export async function writeJqView(out: OutStream, view: View, format: OutputFormat, s: JqSettings): Promise<void> {
  checkJqFormat(format);
  const compact = format === 'ndjson';
  await withEngine(s, async (engine) => {
    if (view.kind === 'text') return apply(out, textJson(view.text), compact, s, engine);
    if (view.kind === 'object') return apply(out, jsonText(view.value), compact, s, engine);
    if (compact) return applyEach(out, view.rows, s, engine);
    return apply(out, recordsJson(await collect(view.rows)), false, s, engine);
  });
}


/**
 * `--jq EXPR`: JSON output filtered through jq before it is written, the one
 * place svc applies it (src/output/write.ts hands views here). With -o json
 * the expression gets the whole value (every record of `query --all` as one
 * array); with -o ndjson it gets each record in turn. What jq prints is
 * written as `jq -r` writes it: strings raw, one output a line.
 */
import { SvcError, UsageError } from '../errors.js';
import { drained } from './drain.js';
import { checkJqFormat, type OutputFormat } from './format.js';
import type { OutStream } from './io.js';
import { createJqEngine, JqRunError, type JqEngine, type JqLimits } from './jq-engine.js';
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

/** What jq printed, as it printed it (in pieces: it may be far more than one string holds), ending in a newline. */
async function write(out: OutStream, output: readonly Uint8Array[]): Promise<void> {
  for (const chunk of output) if (!out.write(chunk)) await drained(out);
  const last = output.at(-1);
  if (last && last[last.length - 1] !== 0x0a && !out.write('\n')) await drained(out);
}

/**
 * Runs the expression over JSON text and writes what it printed, and what it wrote to stderr. When the run
 * fails, what `debug` and `stderr` wrote before it is written all the same (before svc's error line), as jq does.
 */
async function apply(out: OutStream, json: string, compact: boolean, s: JqSettings, engine: JqEngine): Promise<void> {
  const r = await engine.run(json, s.expr, { compact, color: s.color ?? false }).catch((err: unknown) => {
    if (err instanceof JqRunError && err.stderr) s.stderr?.write(err.stderr);
    throw err;
  });
  if (r.stderr) s.stderr?.write(r.stderr);
  await write(out, r.output);
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
 * ndjson: each record is an input of its own. Records go to jq in batches of
 * those already at hand, so output follows the pages as they come.
 */
async function applyEach(out: OutStream, rows: Iterable<Row> | AsyncIterable<Row>, s: JqSettings, engine: JqEngine): Promise<void> {
  const it = Symbol.asyncIterator in rows ? rows[Symbol.asyncIterator]() : (rows as Iterable<Row>)[Symbol.iterator]();
  let batch: string[] = [];
  let chars = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const json = batch.join('\n');
    batch = [];
    chars = 0;
    await apply(out, json, true, s, engine);
  };
  for (;;) {
    const pending = Promise.resolve(it.next());
    // The next record is not there yet (a page is on its way): write what jq makes of those at hand first.
    if (batch.length > 0 && (await Promise.race([pending.then(() => false), new Promise<boolean>((r) => setImmediate(() => r(true)))]))) await flush();
    const next = await pending;
    if (next.done) break;
    const text = jsonText(next.value);
    batch.push(text);
    chars += text.length;
    if (batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) await flush();
  }
  await flush();
}

async function collect(rows: Iterable<Row> | AsyncIterable<Row>): Promise<Row[]> {
  const all: Row[] = [];
  for await (const r of rows) all.push(r);
  return all;
}

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


/**
 * `svc <family> import --from FILE`: reads every row, looks up the records
 * the rows name (by ID or --key; reads only), decides each row's fate and
 * checks it against the catalogue, and only then writes: the rows at
 * --concurrency, each result line written as the row finishes, a summary on
 * stderr. Invalid rows stop the import before anything is written, unless
 * --skip-invalid. --dry-run prints the plan instead of writing.
 */
import { createHash } from 'node:crypto';
import type { Context } from '../../../cli/context.js';
import type { Deps } from '../../../cli/deps.js';
import { InterruptedError, SvcError, UsageError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';
import type { HttpClient } from '../../../http/client.js';
import { keyText, lookupAll, type LookupQuery } from '../../../import/lookup.js';
import { keyValueOf, markDuplicates, planRow, type RowPlan } from '../../../import/plan.js';
import { checkResultsFile, compactResults, openResults, ResultsWriteError, type ResultsWriter } from '../../../import/results.js';
import { detectFormat, readRows, type ImportRow } from '../../../import/rows.js';
import { lockPathOf, removeState, writeState } from '../../../import/state.js';
import { decodeInput } from '../../../import/text.js';
import { checkValue } from '../../../records/check-value.js';
import { allPages } from '../../../records/query.js';
import { localTimeZone } from '../../../records/timestamp.js';
import { findField } from '../../../catalogue/index.js';
import { acquireLock, type HeldLock } from '../../../util/file-lock.js';
import { inputStream, openInput } from '../../../util/read-bounded.js';
import { filterMemberOf } from '../filter-flags.js';
import { graceOf, stopOnSignals, Tally, unlessStopped, writeEach, type StopControl } from '../write-bulk.js';
import { refuseJq, urlMaker } from '../write-dry-run.js';
import { writeRow, type RowWriter } from './execute.js';
import type { ImportOptions } from './options.js';
import { failureMessage, invalidRowsText, planText, summaryParts } from './render.js';
import { FRESH, priorRun, unknownLine, type Prior } from './resume.js';

/** The largest input an import reads: its text must fit in one JavaScript string (a device such as /dev/zero never ends). */
export const MAX_IMPORT_BYTES = 0x1fffffe8;

/** Chunks up to the limit, as one buffer; a usage error past it. */
async function capped(chunks: AsyncIterable<Buffer | string | Uint8Array>, source: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const c of chunks) {
    const b = typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c);
    total += b.length;
    if (total > MAX_IMPORT_BYTES) throw new UsageError(`${source} holds more than ${Math.floor(MAX_IMPORT_BYTES / 1024 / 1024)} MiB, more than svc can import at once; split it into smaller files`);
    parts.push(b);
  }
  return Buffer.concat(parts, total);
}

/** The input's bytes, from the file or stdin. */
async function readInput(opts: ImportOptions, deps: Deps): Promise<Buffer> {
  if (opts.from === '-') return capped(deps.stdin as AsyncIterable<Buffer | string>, 'stdin');
  try {
    // Opened without waiting (a FIFO with no writer yet, a terminal): read through the event loop, so SIGINT and SIGTERM end svc meanwhile.
    const stream = await inputStream(await openInput(opts.from), 1 << 20);
    try {
      return await capped(stream, `--from '${shown(opts.from)}'`);
    } finally {
      stream.destroy();
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`cannot read --from '${shown(opts.from)}': ${why}; check the path (or use - for stdin)`);
  }
}

/** The value a row is looked up by (its key's, or its ID), or undefined when it is not looked up. */
function lookupValue(row: ImportRow, key: string | undefined): unknown {
  if (row.problems.length > 0) return undefined;
  if (key === undefined) return row.id === undefined ? undefined : Number(row.id);
  return keyValueOf(row, key).value;
}

/** Looks up the records the rows name, all at once (reads only): by key value, or by ID. */
async function lookups(ctx: Context, client: HttpClient, opts: ImportOptions, rows: readonly ImportRow[]): Promise<Map<string, Record<string, unknown>[]>> {
  const { family, key } = opts;
  const keyField = key === undefined ? undefined : findField(family, key);
  const values = new Map<string, unknown>();
  const compare = new Set<string>();
  for (const row of rows) {
    const v = lookupValue(row, key);
    if (v === undefined) continue;
    // A key value the field cannot hold would spoil the lookup of every row with it: the row is invalid.
    const problem = keyField ? checkValue(family, keyField, v) : undefined;
    if (problem) {
      row.problems.push(problem);
      continue;
    }
    values.set(keyText(v), v);
    for (const name of Object.keys(row.body)) compare.add(name);
  }
  if (values.size === 0) return new Map();
  const filterMember = await filterMemberOf(ctx);
  const query: LookupQuery = (filter, fields) => allPages(client, family, { body: { fields }, filterMember, filter }, 1000);
  return lookupAll(family, key ?? 'ID', [...values.values()], compare, query);
}

/** Every row's plan, given the lookups; the rows done before are left out. */
function planAll(opts: ImportOptions, rows: readonly ImportRow[], found: Map<string, Record<string, unknown>[]>, prior: Prior): RowPlan[] {
  return rows.map((row) => {
    const v = lookupValue(row, opts.key);
    return planRow(opts.family, row, v === undefined ? undefined : (found.get(keyText(v)) ?? []), { ...(opts.key ? { key: opts.key } : {}), recheck: prior.recheck });
  });
}

export async function runImport(opts: ImportOptions, ctx: Context): Promise<void> {
  const { family } = opts;
  refuseJq(ctx, `svc ${family.name} import (its summary goes to stderr; --results FILE keeps a JSON line a row)`);
  // Before anything is read: --results can be written, and is not the input by another name.
  if (opts.results) checkResultsFile(opts.results, opts.from);
  const source = opts.from === '-' ? 'stdin' : shown(opts.from);
  const bytes = await readInput(opts, ctx.deps);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const input = decodeInput(bytes, source);
  const format = detectFormat(opts.from === '-' ? '' : opts.from, input.text, opts.format);
  const zone = opts.tz ?? localTimeZone(ctx.deps.env);
  const delimiter = ctx.delimited().delimiter;
  // A .tsv file is svc's own -o tsv (tabs, backslash escapes), unless --format or --delimiter says otherwise.
  const tsv = format === 'csv' && opts.format === undefined && ctx.globals.delimiter === undefined && /\.tsv$/i.test(opts.from);
  const rows = readRows(family, input, { format, delimiter: tsv ? '\t' : delimiter, ...(tsv ? { tsv } : {}), zone, source });
  markDuplicates(rows, opts.key);
  // Ctrl-C, SIGTERM and SIGHUP are handled before the lock is taken: one while the rows are looked up ends svc at
  // once (exit 130) with the lock removed; once rows are written, it stops them (writeAll).
  const stop = stopOnSignals(ctx.deps, graceOf(ctx.deps), { writes: false });
  // The results file's lock comes before its lines are read or any key is looked up, so that another run
  // of the same import (an overlapping cron run) cannot finish meanwhile and leave this one a stale plan.
  // A dry run writes nothing and takes no lock.
  let lock: HeldLock | undefined;
  // An unfinished import's results (a killed run leaves them in the order its rows finished), until this run writes.
  let unfinished: string | undefined;
  try {
    lock = opts.results && !opts.dryRun ? takeLock(opts, ctx, opts.results) : undefined;
    // A dry run refuses what the real run refuses (a fresh run over an unfinished import), and reads what --resume continues.
    const prior = opts.results ? priorRun(opts, opts.results, sha256) : FRESH;
    if (lock && prior.state !== undefined) unfinished = opts.results;
    const todo = rows.filter((r) => !prior.done.has(r.line) && !prior.unknown.has(r.line));
    const { client } = await unlessStopped(ctx.connect({ token: true }), stop);
    const plans = planAll(opts, todo, await unlessStopped(lookups(ctx, client, opts, todo), stop), prior);
    const head = `${family.name} import (${source}, ${rows.length.toLocaleString('en-US')} row${rows.length === 1 ? '' : 's'})`;
    const invalid = plans.filter((p): p is Extract<RowPlan, { kind: 'invalid' }> => p.kind === 'invalid');
    if (invalid.length > 0 && !opts.skipInvalid) {
      ctx.deps.stderr.write(invalidRowsText(invalid));
      throw new UsageError(`${invalid.length} of ${rows.length} rows in ${source} are invalid (above); nothing was sent: fix them, or pass --skip-invalid to import the others`);
    }
    if (opts.dryRun) {
      ctx.deps.stderr.write('dry run: nothing was written\n');
      await ctx.emit({ kind: 'text', text: planText(family, plans, await urlMaker(ctx), `${head}${prior.done.size > 0 ? `, ${prior.done.size} done before` : ''}`) });
      return;
    }
    if (stop.signal.aborted) throw stop.signal.reason as Error;
    stop.writing();
    unfinished = undefined;
    await writeAll(opts, ctx, client, stop, plans, prior, { head, sha256, rows: rows.length, source });
  } catch (err) {
    // Stopped before writing (a signal, a failed lookup): the results are left one line a row in input order,
    // as a run that wrote leaves them (--resume reads them either way).
    if (unfinished) {
      const unsorted = compact(unfinished);
      if (unsorted) ctx.deps.stderr.write(`svc: warning: ${unsorted}\n`);
    }
    throw err;
  } finally {
    stop.dispose();
    lock?.release();
  }
}

/** Takes `RESULTS.svc-lock`, or says who holds it. */
function takeLock(opts: ImportOptions, ctx: Context, results: string): HeldLock {
  const p = ctx.deps.processes;
  return acquireLock(lockPathOf(results), `svc ${opts.family.name} import --from ${opts.from}`, p ? { pid: p.pid, isAlive: (pid) => p.kill(pid, 0) } : undefined, ctx.deps.now, (holder) => `another import is writing ${shown(results)} (${holder}); wait for it to end`);
}

/** What the summary and the state file say about the input. */
interface InputFacts {
  readonly head: string;
  readonly sha256: string;
  readonly rows: number;
  readonly source: string;
}

function retriesOf(ctx: Context): number {
  const r = ctx.globals.retries;
  return r !== undefined && /^\d+$/.test(r) ? Number(r) : 3;
}

/**
 * Opens the results file (its lock is held) and its state, writes every planned row, and reports: the
 * summary comes whatever stopped the rows (a refused token, a full disk), then the error that did.
 */
async function writeAll(opts: ImportOptions, ctx: Context, client: HttpClient, stop: StopControl, plans: readonly RowPlan[], prior: Prior, facts: InputFacts): Promise<void> {
  const { deps } = ctx;
  const { family } = opts;
  const tally = new Tally();
  let writer: ResultsWriter | undefined;
  let finished = 0;
  // An error that stopped the rows (a refused token, a results file that cannot be written): after the summary.
  let fatal: { err: unknown } | undefined;
  try {
    if (opts.results) {
      // The results file first: when it cannot be written, no state is left to say an import is unfinished.
      writer = openResults(opts.results, { append: prior.state !== undefined, now: deps.now });
      writeState(opts.results, prior.state ?? { svc: 'import', version: 1, family: family.name, key: opts.key ?? null, input: { name: opts.from, sha256: facts.sha256, rows: facts.rows }, since: new Date(deps.now()).toISOString() });
    }
    for (const r of prior.unknown.values()) {
      const line = unknownLine(r);
      tally.add(line);
      if (r.action === 'sending') writer?.write(line);
    }
    const w: RowWriter = {
      client,
      family,
      ...(opts.key ? { key: opts.key } : {}),
      stop,
      retries: retriesOf(ctx),
      lookup: async (value) => {
        const found = await lookups(ctx, client, opts, [{ line: 0, body: { [opts.key as string]: value }, problems: [] }]);
        return found.get(keyText(value)) ?? [];
      },
      sending: (line) => writer?.sending(line),
    };
    fatal = await writeEach(plans, opts.concurrency, stop, { writer, tally, family }, async (plan) => {
      const r = await writeRow(w, plan);
      finished++;
      return r;
    });
  } catch (err) {
    // Before any row (the results file or its state cannot be written; writeEach reports its own errors): nothing was sent.
    closeQuietly(writer);
    stop.dispose();
    throw err;
  }
  stop.dispose();
  let unsorted: string | undefined;
  if (writer && opts.results) {
    try {
      writer.close();
    } catch (err) {
      fatal ??= { err };
    }
    // A file that could not take a line cannot take its rewrite either (the error below says so).
    if (!(fatal?.err instanceof ResultsWriteError)) unsorted = compact(opts.results);
  }
  tally.report(deps, facts.head, summaryParts(tally, prior.done.size), opts.results);
  if (unsorted) deps.stderr.write(`svc: warning: ${unsorted}\n`);
  if (fatal?.err instanceof ResultsWriteError) {
    throw new SvcError(`${fatal.err.message}; the summary above says what was done: ${fatal.err.fix}, then run it again with --resume to continue`);
  }
  if (fatal) throw fatal.err;
  const left = plans.length - finished;
  if (stop.by) {
    throw new InterruptedError(`interrupted by ${stop.by}: ${left} row${left === 1 ? '' : 's'} not started${opts.results ? `; run it again with --resume to continue` : ' (give --results FILE to be able to resume)'}`);
  }
  if (opts.results && tally.ok) removeState(opts.results);
  if (!tally.ok) throw new SvcError(failureMessage(tally, facts.rows, opts.results, opts.key));
}

function closeQuietly(writer: ResultsWriter | undefined): void {
  try {
    writer?.close();
  } catch {
    // the error being thrown says more
  }
}

/** Rewrites the results to one line per row in input order; when that cannot be done (a full disk), leaves them as they are and answers why. */
function compact(results: string): string | undefined {
  try {
    compactResults(results);
    return undefined;
  } catch (err) {
    return `${shown(results)} keeps its lines in the order the rows finished, not one a row in input order (--resume reads them all the same): ${(err as Error).message}`;
  }
}

/**
 * `update --filter` and `delete --filter`: every record matching a filter,
 * written one by one. The count comes first (stderr), then the question on a
 * terminal (--yes without one). The records are read page by page in ID order
 * (ID and lastmodified); each is read again with GET for its ETag just before
 * its write, which carries that ETag in If-Match: a record changed since it
 * matched (a newer lastmodified) or since the GET (412) is reported, never
 * overwritten. A GET that answers no ETag (a proxy may strip it) leaves no
 * precondition to send: that record fails, unwritten. The verb gives the
 * write of one record.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import { InterruptedError, SvcError, UsageError } from '../../errors.js';
import type { HttpClient } from '../../http/client.js';
import { checkResultsFile, openResults, ResultsWriteError, type ResultLine, type ResultsWriter } from '../../import/results.js';
import { lockPathOf } from '../../import/state.js';
import { allPages, postQuery, postQueryEach } from '../../records/query.js';
import { acquireLock, type HeldLock } from '../../util/file-lock.js';
import { shown } from '../../util/shown.js';
import type { ByFilter } from './bulk-flags.js';
import { buildFilter, filterMemberOf } from './filter-flags.js';
import { confirmBulk, failureOf, graceOf, stopOnSignals, Tally, unlessStopped, writeEach, type StopControl } from './write-bulk.js';
import { PLAN_SAMPLE, refuseJqByFilter, requestLine, urlMaker, writeHeaders } from './write-dry-run.js';
import { etagOf, writePath, type WriteRequest } from './write-send.js';

/** One record as read just before its write. */
export interface ReadRecord {
  readonly id: string;
  readonly record: Readonly<Record<string, unknown>>;
  /** The ETag the GET answered; '' when it answered none. */
  readonly etag: string;
}

/** What a verb gives: its word, the request it sends for a record (for --dry-run), and the write of one record. */
export interface FilterWrite {
  readonly verb: 'update' | 'delete';
  readonly family: ResourceFamily;
  readonly byFilter: ByFilter;
  readonly dryRun: boolean;
  /** The request for a record (its If-Match is that record's ETag). */
  request(id: string): WriteRequest;
  /** Writes one record read with GET; answers its result line. `w` carries the client and what stops the run. */
  write(w: RecordWriting, r: ReadRecord): Promise<ResultLine>;
  /** Where `gone` (a record deleted since it matched) counts: as done for delete, failed for update. */
  readonly goneIsDone: boolean;
}

/** What the write of one record may use. */
export interface RecordWriting {
  readonly client: HttpClient;
  readonly stop: StopControl;
  /** Reads the record again (after an answer was lost): undefined when it is gone. */
  reread(id: string): Promise<ReadRecord | undefined>;
}

/** Reads one record with its ETag; undefined when it no longer exists. */
async function getRecord(client: HttpClient, family: ResourceFamily, id: string, signal: AbortSignal): Promise<ReadRecord | undefined> {
  const res = await client.request({ method: 'GET', root: 'api', path: writePath(family, id), accept: [404], signal });
  if (res.status === 404) {
    await res.body.dump();
    return undefined;
  }
  return { id, record: await res.json<Record<string, unknown>>(), etag: etagOf(res) ?? '' };
}

/** The dry run's plan: the count, the requests each record would get, and the first records. */
async function printPlan(ctx: Context, fw: FilterWrite, count: number, ids: readonly string[]): Promise<void> {
  const url = await urlMaker(ctx);
  const sample = fw.request('ID');
  const out = [
    `${fw.verb} ${count.toLocaleString('en-US')} ${fw.family.name} record${count === 1 ? '' : 's'}, each: GET ${url(writePath(fw.family, 'ID'))} for its ETag, then`,
    requestLine(url(writePath(fw.family, 'ID')), sample),
    ...writeHeaders({ ...sample, ifMatch: '<the ETag the GET answered>' }).map((h) => `  ${h}`),
    '',
    `first ${Math.min(ids.length, PLAN_SAMPLE)}:`,
    ...ids.slice(0, PLAN_SAMPLE).map((id) => `  ${requestLine(url(writePath(fw.family, id)), fw.request(id))}`),
    ...(count > PLAN_SAMPLE ? [`  … and ${(count - PLAN_SAMPLE).toLocaleString('en-US')} more`] : []),
  ];
  ctx.deps.stderr.write('dry run: nothing was written\n');
  await ctx.emit({ kind: 'text', text: `${out.join('\n')}\n` });
}

/** Runs a write by filter: count, ask, then every matching record. */
export async function runByFilter(ctx: Context, fw: FilterWrite): Promise<void> {
  const { family, byFilter } = fw;
  refuseJqByFilter(ctx, family, fw.verb);
  // Before the filter is read or the records counted: a --results that cannot be written is exit 2 now, not after the count.
  if (byFilter.results) checkResultsFile(byFilter.results);
  const filter = await buildFilter(family, byFilter.filter, ctx);
  if (!filter || Object.keys(filter).length === 0) throw new UsageError(`the filter matches every ${family.name} record; give a condition (${fw.verb} does not take an empty filter)`);
  const filterMember = await filterMemberOf(ctx);
  if (fw.dryRun) {
    const { client } = await ctx.connect({ token: true });
    const { count } = await postQuery<{ count: number }>(client, family, { [filterMember]: filter, count: true });
    countLine(ctx, family, count);
    if (count === 0) return;
    const first = await postQueryEach<Record<string, unknown>>(client, family, { [filterMember]: filter, fields: { ID: 'ID' }, sort: ['+ID'], limit: PLAN_SAMPLE });
    return printPlan(ctx, fw, count, first.map((r) => String(r.ID)));
  }
  // Ctrl-C, SIGTERM and SIGHUP are handled before the results lock is taken: one during the count or the question ends
  // svc at once (exit 130), the lock removed; once records are written, it stops them after a grace period.
  const stop = stopOnSignals(ctx.deps, graceOf(ctx.deps), { writes: false });
  let lock: HeldLock | undefined;
  try {
    // The same lock as import's: a second run (an overlapping cron run) would truncate the file under this one.
    lock = byFilter.results ? resultsLock(ctx, fw, byFilter.results) : undefined;
    await writeMatching(ctx, fw, filter, filterMember, stop);
  } finally {
    stop.dispose();
    lock?.release();
  }
}

function countLine(ctx: Context, family: ResourceFamily, count: number): void {
  ctx.deps.stderr.write(`${count.toLocaleString('en-US')} ${family.name} record${count === 1 ? '' : 's'} match${count === 1 ? 'es' : ''} the filter\n`);
}

/** Takes `RESULTS.svc-lock` (as import does), or says who holds it. */
function resultsLock(ctx: Context, fw: FilterWrite, results: string): HeldLock {
  const p = ctx.deps.processes;
  const what = `svc ${fw.family.name} ${fw.verb} --filter … --results ${results}`;
  return acquireLock(lockPathOf(results), what, p ? { pid: p.pid, isAlive: (pid) => p.kill(pid, 0) } : undefined, ctx.deps.now, (holder) => `another svc run is writing ${shown(results)} (${holder}); wait for it to end`);
}

/** Counts, asks, then writes every matching record (the results lock is held). */
async function writeMatching(ctx: Context, fw: FilterWrite, filter: Record<string, unknown>, filterMember: Awaited<ReturnType<typeof filterMemberOf>>, stop: StopControl): Promise<void> {
  const { family, byFilter } = fw;
  const { client } = await unlessStopped(ctx.connect({ token: true }), stop);
  const { count } = await unlessStopped(postQuery<{ count: number }>(client, family, { [filterMember]: filter, count: true }), stop);
  const what = `${fw.verb} ${count.toLocaleString('en-US')} ${family.name} record${count === 1 ? '' : 's'}`;
  countLine(ctx, family, count);
  if (count === 0) return;
  await unlessStopped(confirmBulk(ctx, what, byFilter.yes), stop);
  if (stop.signal.aborted) throw stop.signal.reason as Error;
  stop.writing();
  const withLm = family.fields.some((f) => f.name === 'lastmodified');
  const fields: Record<string, string> = withLm ? { ID: 'ID', lastmodified: 'lastmodified' } : { ID: 'ID' };
  const tally = new Tally();
  let writer: ResultsWriter | undefined;
  let seen = 0;
  let fatal: { err: unknown } | undefined;
  try {
    if (byFilter.results) writer = openResults(byFilter.results, { append: false, now: ctx.deps.now });
    const w: RecordWriting = { client, stop, reread: (id) => getRecord(client, family, id, stop.signal) };
    const one = async (row: Record<string, unknown>): Promise<ResultLine> => {
      const id = String(row.ID);
      let read: ReadRecord | undefined;
      try {
        read = await w.reread(id);
      } catch (err) {
        const f = failureOf(err);
        return { action: fw.verb, id: Number(id), status: f.kind === 'answered' ? f.status : null, etag: null, error: `could not read it before the ${fw.verb}: ${f.message}` };
      }
      if (!read) return { action: fw.verb, id: Number(id), status: 404, etag: null, error: fw.goneIsDone ? null : 'it no longer exists (deleted since it matched); not written' };
      if (withLm && read.record.lastmodified !== row.lastmodified) {
        return { action: fw.verb, id: Number(id), status: null, etag: read.etag, error: 'it changed since it matched the filter (lastmodified differs); not written: check it and run again' };
      }
      if (!read.etag) {
        // Without it the write would carry no precondition and could overwrite a change made meanwhile.
        return { action: fw.verb, id: Number(id), status: null, etag: null, error: 'its GET answered no ETag (a proxy in between may strip it), so it cannot be written safely; not written' };
      }
      return fw.write(w, read);
    };
    const pages = allPages(client, family, { body: { fields }, filterMember, filter }, 1000);
    fatal = await writeEach(pages, byFilter.concurrency, stop, { writer, tally, family }, (row) => {
      seen++;
      return one(row);
    });
  } finally {
    try {
      writer?.close();
    } catch (err) {
      fatal ??= { err };
    }
  }
  report(ctx, fw, tally, seen);
  if (fatal?.err instanceof ResultsWriteError) {
    throw new SvcError(`${fatal.err.message}; stopped after ${seen.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} records (above): ${fatal.err.fix}, then run the command again for the rest`);
  }
  if (fatal) throw fatal.err;
  if (stop.by) throw new InterruptedError(`interrupted by ${stop.by} after ${seen.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} records; run the command again for the rest`);
  if (!tally.ok) throw new SvcError(`${tally.counts.failed + tally.counts.unknown} of ${seen} records were not ${fw.verb === 'update' ? 'updated' : 'deleted'}${byFilter.results ? `; see ${byFilter.results}` : ''}`);
}

function report(ctx: Context, fw: FilterWrite, tally: Tally, seen: number): void {
  const c = tally.counts;
  const head = `${fw.family.name} ${fw.verb} (${seen.toLocaleString('en-US')} record${seen === 1 ? '' : 's'})`;
  const parts: [number, string, boolean][] =
    fw.verb === 'update'
      ? [
          [c.updated, 'updated', true],
          [c.unchanged, 'unchanged', true],
          [c.failed, 'failed', true],
          [c.unknown, 'unknown', false],
        ]
      : [
          [c.deleted, 'deleted', true],
          [c.failed, 'failed', true],
          [c.unknown, 'unknown', false],
        ];
  tally.report(ctx.deps, head, parts, fw.byFilter.results);
}

/**
 * Keeping one family's copy in step. A first run copies every matching
 * record (keyset pages by ID, chunks fetched in parallel and written in ID
 * order, a transaction a page carrying the first pass's progress). A later
 * run asks only for records with lastmodified >= cursor - lag, upserted by
 * ID; then the IDs that changed without the user's filter tell the records
 * that left it, and an IDs-only pass of the filtered family (every run, or
 * every N) the records deleted on the service. The cursor is a
 * lastmodified of the service's, never of the local clock: a first pass asks
 * for the latest as it begins, a later run takes the highest of the stamps
 * it fetched, each less the time its scan took to that page (latestStamp).
 * It is saved with the run's last write: a crash at any moment leaves the
 * state at or behind the data, and the next run converges.
 */
import type { ResourceFamily } from '../catalogue/index.js';
import { findFamily } from '../catalogue/index.js';
import { createChunker, type Density } from '../export/chunks.js';
import { inOrder, type Producer } from '../export/ordered.js';
import { FUTURE_SECONDS, localClock, newestStamp, ScanCursor } from '../export/service-clock.js';
import { isServerFailure, pagesOf, type Digest, type FetchRows, type PageQuery } from '../export/pager.js';
import { canonicalJson } from '../export/plan.js';
import { SvcError, UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import type { Row } from '../output/view.js';
import type { Selected } from '../records/query-body.js';
import { refuseReferencePaths } from '../records/followed-paths.js';
import { andCondition } from '../records/page-filter.js';
import { shellQuote } from '../util/shell-quote.js';
import { version } from '../version.js';
import { fieldsMember, planColumns, UnfitValue, unfitFor, type ColumnPlan } from './columns.js';
import type { SyncState, SyncStore } from './store.js';

/** The filter flags as the user gave them (a --filter-file is kept as its JSON), remembered in the target. */
export interface RememberedFilter {
  readonly filter: readonly string[];
  readonly filterJson: readonly string[];
  readonly search?: string;
  readonly tz?: string;
}

/** What a family's copy holds: its filter, its fields ('' for all) and whether deletions are kept. */
export interface Settings {
  readonly filter: RememberedFilter;
  readonly fields: string;
  readonly keepDeleted: boolean;
}

/** The query parts the settings compile to. */
export interface Compiled {
  readonly filter?: Record<string, unknown>;
  readonly search?: string;
  readonly selected?: readonly Selected[];
}

export interface SyncJob {
  readonly family: ResourceFamily;
  readonly store: SyncStore;
  /** What this run's flags say; a member absent was not given (the remembered one applies). */
  readonly given: { readonly filter?: RememberedFilter; readonly fields?: string; readonly keepDeleted?: boolean };
  readonly reset: boolean;
  /**
   * --reset rebuilds with the remembered settings where none are given (svc sync, which takes no filter flags or
   * --fields); a value that does not fit its column then names the family and the `svc <family> sync` leaving it out.
   */
  readonly resetKeeps?: boolean;
  /** Turns settings into the filter and the fields (the filter language needs the command's context). */
  compile(settings: Settings): Promise<Compiled>;
  readonly filterMember: 'filter' | 'filters';
  readonly lagSeconds: number;
  readonly concurrency: number;
  readonly pageSize: number;
  /** Compare IDs every N complete runs (1: every run). */
  readonly reconcileEvery: number;
  /** Held IDs a range may have for its IDs to be compared one by one (default LEAF; tests make it small). */
  readonly leaf?: number;
  readonly fetch: FetchRows;
  /** Sends a count query body (`count: true`) and answers the count. */
  count(body: Record<string, unknown>): Promise<number>;
  readonly signal: AbortSignal;
  /** Milliseconds since the epoch. */
  now(): number;
  /** Milliseconds on a clock that is never stepped: how long the changed-records scan took to each page (the cursor depends on it). */
  monotonic(): number;
  warn(message: string): void;
  /** Told how many records this run has handled so far. */
  progress?(records: number): void;
}

/** What a run did to a family's copy: the summary `-o json` prints. */
export interface SyncSummary {
  readonly family: string;
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  /** Requests sent for this family. */
  readonly pages: number;
  readonly seconds: number;
  readonly cursor: number | null;
}

/** Pages a chunk may fetch ahead of the writer, and chunks started per concurrent request (as export). */
const DEPTH = 2;
const WINDOW = 2;
/** Records a page of an IDs-only pass (the service's largest page). */
const ID_PAGE = 10000;
/** Attempts at a single small request that keeps failing on the server's side. */
const ATTEMPTS = 6;

const EMPTY_FILTER: RememberedFilter = { filter: [], filterJson: [] };

function filterText(f: RememberedFilter): string {
  return canonicalJson({ filter: f.filter, filterJson: f.filterJson, search: f.search, tz: f.tz });
}

/** A member of the saved state as JSON; a usage error naming --reset when it is not (the state was edited by hand). */
function stateJson(family: string, member: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${family}: the saved sync state's ${member} is not what svc wrote (not JSON); add --reset to rebuild the table`);
  }
}

export function parseFilter(text: string, family = ''): RememberedFilter {
  const v = stateJson(family, 'filter', text) as Partial<RememberedFilter>;
  if (typeof v !== 'object' || v === null || (v.filter !== undefined && !Array.isArray(v.filter)) || (v.filterJson !== undefined && !Array.isArray(v.filterJson))) {
    throw new UsageError(`${family}: the saved sync state's filter is not what svc wrote; add --reset to rebuild the table`);
  }
  return { filter: v.filter ?? [], filterJson: v.filterJson ?? [], ...(v.search !== undefined ? { search: v.search } : {}), ...(v.tz !== undefined ? { tz: v.tz } : {}) };
}

/** The remembered filter as the flags that give it, shell-quoted. */
function filterFlags(f: RememberedFilter): string[] {
  const parts = [...f.filter.map((x) => `--filter ${shellQuote(x)}`), ...f.filterJson.map((x) => `--filter-json ${shellQuote(x)}`)];
  if (f.search !== undefined) parts.push(`--search ${shellQuote(f.search)}`);
  if (f.tz !== undefined) parts.push(`--tz ${shellQuote(f.tz)}`);
  return parts;
}

/** How the remembered filter reads in a message. */
export function describeFilter(f: RememberedFilter): string {
  const parts = filterFlags(f);
  return parts.length ? parts.join(' ') : 'no filter';
}

/** A --fields list longer than this is not spelled out in a message. */
const FIELDS_SHOWN = 120;

/**
 * The command that rebuilds a family's copy without `column`: `svc <family>
 * sync --reset` with the remembered filter flags and --keep-deleted (a
 * --reset takes only the flags it is given) and --fields naming every other
 * column (spelled out while short).
 */
function withoutColumn(family: string, path: string, settings: Settings, columns: readonly ColumnPlan[], column: ColumnPlan): string {
  const rest = columns.slice(1).filter((c) => c !== column).map((c) => (c.name === c.path ? c.name : `${c.name}=${c.path}`));
  const list = rest.length ? rest.join(',') : 'ID';
  const fields = list.length <= FIELDS_SHOWN ? shellQuote(list) : '…';
  const flags = [`--into ${shellQuote(path)}`, '--reset', `--fields ${fields}`, ...filterFlags(settings.filter), ...(settings.keepDeleted ? ['--keep-deleted'] : [])];
  return `leave it out with svc ${family} sync ${flags.join(' ')}${fields === '…' ? ` (every field but ${column.name})` : ''}`;
}

/**
 * The settings this run uses: the given ones on a fresh copy or with --reset;
 * otherwise the remembered ones, and a usage error when given ones differ.
 */
export function settingsFor(job: Pick<SyncJob, 'family' | 'given' | 'reset' | 'resetKeeps'>, state: SyncState | undefined): Settings {
  const { given } = job;
  if (!state || (job.reset && !job.resetKeeps)) return { filter: given.filter ?? EMPTY_FILTER, fields: given.fields ?? '', keepDeleted: given.keepDeleted ?? false };
  let filter: RememberedFilter;
  try {
    filter = parseFilter(state.filter, job.family.name);
  } catch (err) {
    if (!job.reset) throw err;
    throw new UsageError(`${job.family.name}: the saved sync state's filter is not what svc wrote, so it cannot be rebuilt with it; rebuild it with svc ${job.family.name} sync --reset and the filter flags`);
  }
  const kept: Settings = { filter, fields: state.fields, keepDeleted: state.keepDeleted };
  if (job.reset) return { filter: given.filter ?? kept.filter, fields: given.fields ?? kept.fields, keepDeleted: given.keepDeleted ?? kept.keepDeleted };
  const refuse = (what: string, was: string, now: string): never => {
    throw new UsageError(`${job.family.name}: this copy was made with ${was}, not ${now}; run without ${what} to keep it, or add --reset to rebuild the table`);
  };
  if (given.filter && filterText(given.filter) !== filterText(kept.filter)) refuse('the filter flags', describeFilter(kept.filter), describeFilter(given.filter));
  if (given.fields !== undefined && given.fields !== kept.fields) refuse('--fields', kept.fields ? `--fields ${kept.fields}` : 'every field', `--fields ${given.fields || "''"}`);
  if (given.keepDeleted !== undefined && given.keepDeleted !== kept.keepDeleted) refuse('--keep-deleted', kept.keepDeleted ? '--keep-deleted' : 'deletions removed', '--keep-deleted');
  return kept;
}

/** Counts every request the run sends. */
function counted(fetch: FetchRows, count: (body: Record<string, unknown>) => Promise<number>): { fetch: FetchRows; count(body: Record<string, unknown>): Promise<number>; requests(): number } {
  let n = 0;
  const f: FetchRows = (body, each, signal) => {
    n++;
    return fetch(body, each, signal);
  };
  return {
    fetch: f,
    count: (body) => {
      n++;
      return count(body);
    },
    requests: () => n,
  };
}

/** One small request, asked again while the server fails (the client retries first). */
async function retrying<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    try {
      return await work();
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (attempt >= ATTEMPTS || !isServerFailure(err)) throw err;
    }
  }
}

interface Pass {
  readonly fetch: FetchRows;
  readonly count: (body: Record<string, unknown>) => Promise<number>;
  readonly signal: AbortSignal;
  readonly concurrency: number;
  readonly pageSize: number;
  readonly warn: (m: string) => void;
}

/** The highest ID matching the filter (the range parallel chunks are cut from), undefined when none does. */
async function highestId(pass: Pass, query: PageQuery): Promise<number | undefined> {
  const body: Record<string, unknown> = { sort: ['-ID'], limit: 1, fields: { ID: 'ID' } };
  if (query.filter) body[query.filterMember] = query.filter;
  if (query.search) body.query = query.search;
  const rows = await retrying(pass.signal, () => pass.fetch(body, (r) => Number(r.ID), pass.signal));
  return rows[0];
}

/** A page as the writer takes it. */
interface RowPage {
  readonly rows: Row[];
  readonly last: number;
}

/**
 * Every page of the query above `from`, in ID order. The first page is asked
 * first: when it holds fewer records than it asked for it is all there is
 * (an incremental run with few changes costs one request; two at a
 * concurrency above 1 without a filter). Otherwise what it held (records per
 * ID) sizes the chunks of the rest, fetched `concurrency` at a time up to the
 * highest ID of `bound` (the query without its lastmodified condition: found
 * from the top of the ID index, where a scan for changed records would read
 * everything; without a filter asked beside the first page).
 * The rest is asked for before the first page is handed over, so the service
 * reads the next pages while the first is written.
 */
async function* pagesAbove(pass: Pass, query: PageQuery, from: number, bound: PageQuery = query): AsyncGenerator<RowPage> {
  const onShrink = (size: number): void => pass.warn(`a page kept failing; asking again with ${size} records a page`);
  const newDigest = (): Digest<Row[]> => {
    const rows: Row[] = [];
    return { add: (row) => rows.push(row), finish: () => rows };
  };
  const opts = { pageSize: pass.pageSize, signal: pass.signal, onShrink };
  if (pass.concurrency <= 1) {
    for await (const page of pagesOf(pass.fetch, query, { after: from, upTo: null }, from, opts, newDigest)) yield { rows: page.item, last: page.last };
    return;
  }
  // The highest ID, with its own signal: not needed when the first page is the last, and stopped with the rest on
  // any way out. Without a filter it is the top of the ID index, asked beside the first page; with one the service
  // may walk far down the index to the first match, so it is asked only once the first page turns out full.
  const topStop = new AbortController();
  const askTop = (): Promise<number | undefined> => {
    const p = highestId({ ...pass, signal: AbortSignal.any([pass.signal, topStop.signal]) }, bound);
    // Settled here too: a failure surfaces where it is awaited, never as an unhandled rejection meanwhile.
    p.catch(() => undefined);
    return p;
  };
  const early = bound.filter === undefined && bound.search === undefined ? askTop() : undefined;
  const top = (): Promise<number | undefined> => early ?? askTop();
  const stop = new AbortController();
  try {
    yield* firstThenRest(pass, query, from, top, stop.signal, opts, newDigest);
  } finally {
    // Whatever ends the pages (the last written, the writer failing, an interrupt): requests still out are stopped.
    topStop.abort(new Error('sync stopped'));
    stop.abort(new Error('sync stopped'));
  }
}

/** pagesAbove at a concurrency above 1: the first page, then the rest in parallel chunks (stopped by `stop`). */
async function* firstThenRest(
  pass: Pass,
  query: PageQuery,
  from: number,
  top: () => Promise<number | undefined>,
  stop: AbortSignal,
  opts: { pageSize: number; signal: AbortSignal; onShrink: (size: number) => void },
  newDigest: () => Digest<Row[]>,
): AsyncGenerator<RowPage> {
  let first: RowPage | undefined;
  let last = true;
  for await (const page of pagesOf(pass.fetch, query, { after: from, upTo: null }, from, opts, newDigest)) {
    first = { rows: page.item, last: page.last };
    // Fewer than asked for: the last page. (Fewer than the page size is not enough: failures may have halved it.)
    last = page.count < page.limit;
    break;
  }
  if (!first) return;
  if (last) {
    yield first;
    return;
  }
  const max = await top();
  // The first page's density (records per ID above `from`), stated as the chunker reads it: a sample above where it starts.
  const density: Density | undefined = max === undefined ? undefined : { max, count: first.rows.length, upTo: first.last + (first.last - from) };
  const chunker = createChunker({ after: first.last, upTo: null }, first.last, pass.pageSize, density);
  const next = (): Producer<RowPage> | undefined => {
    const chunk = chunker.next();
    if (!chunk) return undefined;
    return async function* chunkPages(signal) {
      let n = 0;
      for await (const page of pagesOf(pass.fetch, query, chunk, chunk.after, { ...opts, signal }, newDigest)) {
        n += page.count;
        yield { rows: page.item, last: page.last };
      }
      chunker.observe(chunk, n);
    };
  };
  const rest = inOrder(next, { running: pass.concurrency, window: WINDOW * pass.concurrency, depth: DEPTH, signal: AbortSignal.any([pass.signal, stop]) });
  // Started now (the chunks' first requests), and a turn of the event loop for them to go out before the writer
  // takes the first page (a write holds the thread).
  const pending = rest.next();
  pending.catch(() => undefined);
  await new Promise<void>((resolve) => setImmediate(resolve));
  yield first;
  for (let r = await pending; !r.done; r = await rest.next()) yield r.value;
}

/** Pages a transaction writes (fewer commits, and DuckDB merges far fewer times). */
const BATCH_PAGES = 5;

/** Hands the pages' records to `write` in batches of about `size` records, in order, with the highest ID of each. */
async function inBatches(pages: AsyncIterable<RowPage>, size: number, write: (rows: Row[], last: number) => Promise<void>): Promise<void> {
  let rows: Row[] = [];
  let last = 0;
  for await (const page of pages) {
    for (const r of page.rows) rows.push(r);
    last = page.last;
    if (rows.length >= size) {
      await write(rows, last);
      rows = [];
    }
  }
  if (rows.length) await write(rows, last);
}

/** The key the changed records carry lastmodified under: a column that copies it, else an alias no column has. */
function lastmodifiedKey(columns: readonly ColumnPlan[]): string {
  const copied = columns.find((c) => c.path === 'lastmodified');
  if (copied) return copied.name;
  const taken = new Set(columns.map((c) => c.name.toLowerCase()));
  let key = '__svc_lastmodified';
  while (taken.has(key)) key += '_';
  return key;
}

/**
 * The stamps a later run fetched, for its cursor (ScanCursor: each less the
 * time to its page). Stamps above this machine's clock (`clock`, in seconds)
 * do not count: one imported hours ahead would put every change made
 * meanwhile below the cursor (the lag covers the clocks' skew); a warning
 * names the highest when it is more than FUTURE_SECONDS ahead.
 */
function latestStamp(clock: () => number, monotonic: () => number): { page(): (value: unknown) => void; cursor(before: number | null, warn: (m: string) => void): number | null } {
  const local = localClock(clock);
  const warnAbove = local.now + FUTURE_SECONDS;
  const scan = new ScanCursor(monotonic);
  let ahead: number | undefined;
  return {
    page() {
      const see = scan.page();
      return (value) => {
        if (typeof value !== 'number' || !Number.isFinite(value)) return;
        if (local.ahead(value)) ahead = Math.max(ahead ?? value, value);
        else see(value);
      };
    },
    cursor(before, warn) {
      if (ahead !== undefined && ahead > warnAbove) warn(`a record was changed in the future (lastmodified ${ahead}); it does not move the cursor`);
      return scan.cursor(before);
    },
  };
}

/** Runs one family's sync to its end; throws (the copy at its last committed page) otherwise. */
export async function syncFamily(job: SyncJob): Promise<SyncSummary> {
  const started = job.now();
  const { family, store } = job;
  const name = family.name;
  if (!family.fields.some((f) => f.name === 'lastmodified')) throw new UsageError(`${name} records carry no lastmodified, so svc cannot tell what changed: use 'svc ${name} export' instead`);
  const previous = await store.readState(name);
  const settings = settingsFor(job, previous);
  const compiled = await job.compile(settings);
  refuseReferencePaths(family, 'sync', (compiled.selected ?? []).map((f) => f.path), compiled.filter, job.given.fields === undefined && job.given.filter === undefined && previous !== undefined);
  const columns = planColumns(family, compiled.selected ?? family.fields.map((f) => ({ name: f.name, path: f.name })), settings.keepDeleted);
  const tableThere = await store.hasTable(name);
  if (!previous && tableThere) {
    throw new SvcError(`${shown(store.path)} already has a table '${name}' that svc sync did not make; it is left as it is: sync into another file, or drop that table`);
  }
  const keptColumns = previous && !job.reset ? (stateJson(name, 'columns', previous.columns) as ColumnPlan[]) : undefined;
  if (previous && !job.reset && canonicalJson(keptColumns) !== canonicalJson(columns)) {
    throw new UsageError(`${name}: the catalogue's types for these fields changed since this copy was made; add --reset to rebuild the table`);
  }
  const { fetch, count, requests } = counted(job.fetch, (body) => job.count(body));
  const pass: Pass = { fetch, count, signal: job.signal, concurrency: job.concurrency, pageSize: job.pageSize, warn: job.warn };
  const nowSeconds = (): number => Math.floor(job.now() / 1000);
  const base = { family: name, filter: filterText(settings.filter), fields: settings.fields, keepDeleted: settings.keepDeleted, columns: JSON.stringify(columns), svcVersion: version };
  let state: SyncState;
  if (!previous || job.reset || !tableThere) {
    // A first pass starts from the service's latest lastmodified as it begins (one scan, beside a copy of everything).
    state = { ...base, cursor: (await retrying(pass.signal, () => newestStamp(pass.fetch, nowSeconds(), job.warn, pass.signal))) ?? null, phase: 'initial', afterId: 0, lastReconcile: null, runs: 0, runsSinceReconcile: 0, updatedAt: nowSeconds() };
    await store.create(state, columns, tableThere);
  } else {
    state = { ...previous, svcVersion: version };
  }
  const query: PageQuery = {
    filterMember: job.filterMember,
    ...(compiled.filter ? { filter: compiled.filter } : {}),
    ...(compiled.search ? { search: compiled.search } : {}),
    fields: fieldsMember(columns),
    idKey: 'ID',
  };
  /**
   * Writes rows. A value that does not fit its column names the record; in a run of `svc sync` (several
   * families, no --fields) the line names the family too, and the `svc <family> sync` that leaves it out.
   */
  const upsert = async (rows: Row[], saved: SyncState | undefined, fresh: boolean): ReturnType<SyncStore['upsert']> => {
    try {
      return await store.upsert(name, columns, rows, saved, fresh);
    } catch (err) {
      if (!(err instanceof UnfitValue) || !job.resetKeeps) throw err;
      throw unfitFor(name, err, withoutColumn(name, store.path, settings, columns, err.column));
    }
  };
  const tally = { inserted: 0, updated: 0, deleted: 0 };
  let seen = 0;
  const report = (n: number): void => {
    seen += n;
    job.progress?.(seen);
  };
  let resumedFirstPass = false;
  if (state.phase === 'initial') {
    resumedFirstPass = state.afterId > 0;
    // Pages are written in batches, each batch one transaction with the first pass's progress (its last ID).
    const write = async (rows: Row[], last: number): Promise<void> => {
      state = { ...state, afterId: last, updatedAt: nowSeconds() };
      tally.inserted += (await upsert(rows, state, true)).inserted;
      report(rows.length);
    };
    await inBatches(pagesAbove(pass, query, state.afterId), job.pageSize * BATCH_PAGES, write);
    await store.indexIds(name, settings.keepDeleted);
  }
  // A whole first pass in one run is the state of the service when it began; anything else catches up from the cursor.
  const incremental = state.phase === 'ready' || resumedFirstPass;
  // A cursor whose bound is ahead of this machine's clock (a hand's edit; a clock stepped back by more than the lag)
  // would ask only for changes still to come, run after run: it is taken as the clock, as a watch takes it. One only
  // a little ahead still asks for every change made now, and is kept.
  const now = nowSeconds();
  let cursor = state.cursor !== null && state.cursor - job.lagSeconds > now ? now : state.cursor;
  const since = cursor === null ? 0 : Math.max(0, cursor - job.lagSeconds);
  const deletedAt = settings.keepDeleted ? nowSeconds() : undefined;
  if (incremental) {
    const changedIds = compiled.filter || compiled.search ? new Set<number>() : undefined;
    const lm = lastmodifiedKey(columns);
    const changed: PageQuery = { ...query, fields: { ...query.fields, [lm]: 'lastmodified' }, filter: andCondition(compiled.filter, 'lastmodified', { '>=': since }) };
    const latest = latestStamp(nowSeconds, () => job.monotonic());
    // A transaction a page. Changed records are scattered over the table, each costing its page written twice
    // (SQLite), and a short write lets the service go on with the pages asked ahead meanwhile (1M accounts, 1%
    // changed: 15% faster than five pages); a value that does not fit its column stops the run at its page.
    // (DuckDB commits cost more: five pages were 8% faster for 2,000 changed records.)
    await inBatches(pagesAbove(pass, changed, 0, query), job.pageSize, async (rows) => {
      const see = latest.page();
      for (const r of rows) see(r[lm]);
      const done = await upsert(rows, undefined, false);
      tally.inserted += done.inserted;
      tally.updated += done.updated;
      if (changedIds) for (const r of rows) changedIds.add(Number(r.ID));
      report(rows.length);
    });
    cursor = latest.cursor(cursor, job.warn);
    if (changedIds) tally.deleted += await leftFilter(pass, store, name, since, changedIds, settings.keepDeleted, deletedAt, job.filterMember);
  }
  const reconcile = resumedFirstPass || (incremental && state.runsSinceReconcile + 1 >= job.reconcileEvery);
  if (reconcile) tally.deleted += await reconcileIds(pass, store, name, query, settings.keepDeleted, deletedAt, job.leaf ?? LEAF);
  const finished = nowSeconds();
  state = {
    ...state,
    phase: 'ready',
    afterId: 0,
    cursor,
    runs: state.runs + 1,
    runsSinceReconcile: reconcile || !incremental ? 0 : state.runsSinceReconcile + 1,
    lastReconcile: reconcile || !incremental ? finished : state.lastReconcile,
    updatedAt: finished,
  };
  await store.saveState(state);
  return { family: name, ...tally, pages: requests(), seconds: Math.round((job.now() - started) / 10) / 100, cursor: state.cursor };
}

/**
 * Records that changed but no longer match the filter: the IDs changed since
 * `since` without the filter, less those the filtered pass saw; the ones held
 * leave the copy.
 */
async function leftFilter(pass: Pass, store: SyncStore, name: string, since: number, inFilter: ReadonlySet<number>, keepDeleted: boolean, deletedAt: number | undefined, filterMember: 'filter' | 'filters'): Promise<number> {
  const query: PageQuery = { filterMember, filter: { lastmodified: { '>=': since } }, fields: { ID: 'ID' }, idKey: 'ID' };
  let removed = 0;
  let prev = 0;
  for await (const page of pagesAbove({ ...pass, pageSize: ID_PAGE }, query, 0, { filterMember, fields: { ID: 'ID' }, idKey: 'ID' })) {
    const out = page.rows.map((r) => Number(r.ID)).filter((id) => !inFilter.has(id));
    if (out.length) {
      const held = new Set(await store.heldIds(name, prev, page.last, keepDeleted));
      const gone = out.filter((id) => held.has(id));
      if (gone.length) removed += await store.remove(name, gone, deletedAt);
    }
    prev = page.last;
  }
  return removed;
}

/** A range of IDs, (after, upTo]; upTo null: no bound. */
interface Span {
  readonly after: number;
  readonly upTo: number | null;
}

/** Held IDs a range may have for its IDs to be compared one by one (else it is split). */
const LEAF = 20_000;
/** Parts a range is split into when its counts differ. */
const FANOUT = 8;

/** Runs `work` on every item, at most `limit` at a time; answers the results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Deletions, found by counting: the records the service has for the filter
 * in an ID range against the live records held there. A range whose counts
 * agree (or where nothing is held) has nothing to delete; one that differs
 * is split, down to ranges of at most LEAF held IDs, whose IDs are then
 * fetched (IDs only) and compared one by one: what is held and not on the
 * service leaves the copy (or is marked deleted). When nothing was deleted
 * this costs one count request. Records created during the run (after the
 * changed records were fetched) are on the service and not yet held, so a
 * deletion in the same range can balance one of them out until the next run,
 * which fetches the new record and then sees the difference.
 */
async function reconcileIds(pass: Pass, store: SyncStore, name: string, query: PageQuery, keepDeleted: boolean, deletedAt: number | undefined, leaf: number): Promise<number> {
  const ids: PageQuery = { ...query, fields: { ID: 'ID' } };
  // The whole range is counted without an ID condition first: a bare count is the service's cheapest question
  // (an index's size) where `ID > 0` reads every record. It would also count records at IDs of 0 and below, which
  // the pages (above 0) never hold and the service never makes: when it says more than is held, the range is
  // counted again with its condition (fewer is a deletion either way).
  const whole = (span: Span): boolean => span.after === 0 && span.upTo === null;
  const countBody = (span: Span, bare: boolean): Record<string, unknown> => {
    const cond: Record<string, number> = { '>': span.after };
    if (span.upTo !== null) cond['<='] = span.upTo;
    const filter = bare ? query.filter : andCondition(query.filter, 'ID', cond);
    return { ...(filter ? { [query.filterMember]: filter } : {}), ...(query.search ? { query: query.search } : {}), count: true };
  };
  let removed = 0;
  /** Compares a leaf range ID by ID. */
  const compare = async (span: Span): Promise<void> => {
    const there = new Set<number>();
    const onShrink = (size: number): void => pass.warn(`a page kept failing; asking again with ${size} records a page`);
    const newDigest = (): Digest<null> => ({ add: (row) => void there.add(Number(row.ID)), finish: () => null });
    for await (const page of pagesOf(pass.fetch, ids, span, span.after, { pageSize: ID_PAGE, signal: pass.signal, onShrink }, newDigest)) void page;
    const gone = (await store.heldIds(name, span.after, span.upTo, keepDeleted)).filter((id) => !there.has(id));
    if (gone.length) removed += await store.remove(name, gone, deletedAt);
  };
  let level: Span[] = [{ after: 0, upTo: null }];
  while (level.length) {
    const checked = await mapLimit(level, pass.concurrency, async (span) => {
      const held = await store.countHeld(name, span.after, span.upTo, keepDeleted);
      if (held === 0) return [];
      let there = await retrying(pass.signal, () => pass.count(countBody(span, whole(span))));
      if (there > held && whole(span)) there = await retrying(pass.signal, () => pass.count(countBody(span, false)));
      if (there === held) return [];
      const top = span.upTo ?? (await store.maxHeld(name, keepDeleted)) ?? span.after;
      if (held <= leaf || top - span.after <= FANOUT) {
        await compare(span);
        return [];
      }
      // Split what is held into FANOUT parts by ID; the last keeps the range's own end (open: records above the held ones).
      const parts: Span[] = [];
      const width = Math.ceil((top - span.after) / FANOUT);
      for (let i = 0, after = span.after; i < FANOUT; i++, after += width) parts.push({ after, upTo: i === FANOUT - 1 ? span.upTo : Math.min(after + width, top) });
      return parts;
    });
    level = checked.flat();
  }
  return removed;
}

/** The family of a remembered state row (for `svc sync` listing what a target holds). */
export function familyOf(name: string): ResourceFamily | undefined {
  return findFamily(name);
}

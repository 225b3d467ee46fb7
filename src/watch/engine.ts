/**
 * The watch loop: a poll every interval, each a few keyset passes by ID
 * (src/export/pager.ts, so server failures halve the page and nothing is
 * skipped), writing one NDJSON line per change:
 * 1. the records matching the user's query changed at or after the lower
 *    bound (cursor − lag, or every record on the first poll of a snapshot):
 *    an upsert for each whose line differs from the one last written for it;
 * 2. with a filter or search, the IDs changed at or after the bound whatever
 *    they hold (asked first): one seen before, not in pass 1, has left the
 *    query (delete);
 * 3. every `reconcileEvery` polls, the IDs matching now: a known one missing
 *    was deleted (delete). The first poll starts with this pass: the IDs
 *    matching then are the IDs known (a resumed one writes the deletes it
 *    finds after its upserts, as every poll does).
 * Lines go out page by page; the state follows each page once written, and
 * the cursor file is saved when a poll is done (and on every way out). New
 * IDs become known, and are saved, before their lines go out.
 */
import { createHash } from 'node:crypto';
import { SvcError } from '../errors.js';
import { shortDuration } from '../util/duration.js';
import { isServerFailure, pageBody, pagesOf, type Digest, type FetchRows, type PageQuery } from '../export/pager.js';
import type { IdRange } from '../export/plan.js';
import { localClock, newestStamp, ScanCursor } from '../export/service-clock.js';
import type { OutStream } from '../output/io.js';
import type { Row } from '../output/view.js';
import { andCondition } from '../records/page-filter.js';
import { OutputClosed, sleep, writeLines } from './lines.js';
import { shownRecord, type Selection } from './selection.js';
import { IdSet } from './id-set.js';
import { lowerBound, pruneWindow, type WatchState } from './state.js';

/** The query the user gave. */
export interface WatchQuery {
  readonly filterMember: 'filter' | 'filters';
  readonly filter?: Record<string, unknown>;
  readonly search?: string;
}

export interface WatchOptions {
  readonly family: string;
  readonly query: WatchQuery;
  readonly selection: Selection;
  readonly lagSeconds: number;
  readonly intervalMs: number;
  readonly reconcileEvery: number;
  readonly pageSize: number;
  /** One poll, then stop. */
  readonly once: boolean;
  readonly state: WatchState;
  readonly fetch: FetchRows;
  readonly out: OutStream;
  /** Saves the state (the cursor file; synchronous, so it is done before a closed pipe ends the process). */
  readonly save: (state: WatchState) => void;
  /** Called at once, synchronously, when standard output turns out closed. */
  readonly onClosed?: () => void;
  readonly signal: AbortSignal;
  readonly warn: (message: string) => void;
  /** This machine's clock (ms since the epoch): a record stamped ahead of it does not move the cursor past it (absent: no such check). */
  readonly now?: () => number;
  /** Milliseconds on a clock that is never stepped: how long a poll's scan took, which the cursor is set back by (absent: performance.now()). */
  readonly monotonic?: () => number;
}

/** How the watch ended without an error. */
export type WatchEnd = 'once' | 'closed';

/** Polls tried again after a server failure (waiting interval, 2×, 4×) before the watch gives up. */
export const POLL_RETRIES = 3;
/** Pages of a first poll between two saves of the cursor file (at most these are written again after a kill -9). */
const SNAPSHOT_SAVE_PAGES = 50;
/** Records per request of the ID-only passes. */
const ID_PAGE = 10_000;
const ALL: IdRange = { after: 0, upTo: null };

/** Runs polls until stopped; answers 'once' after one poll with --once, 'closed' when the reader of stdout went away. */
export async function runWatch(o: WatchOptions): Promise<WatchEnd> {
  try {
    for (;;) {
      await pollWithRetries(o);
      if (o.once) return 'once';
      await sleep(o.intervalMs, o.signal);
    }
  } catch (err) {
    // Saved already, before anything else could happen.
    if (err instanceof OutputClosed) return 'closed';
    // Every other way out leaves the cursor file at the last line written (the state is consistent at page boundaries).
    o.save(o.state);
    throw err;
  }
}

async function pollWithRetries(o: WatchOptions): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await poll(o);
      return;
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      if (!isServerFailure(err)) throw err;
      if (attempt >= POLL_RETRIES) {
        throw new SvcError(`${o.family} watch stopped: the service kept failing (${(err as Error).message}) over ${attempt + 1} polls; the cursor is at the last line written`);
      }
      const wait = Math.min(o.intervalMs * 2 ** attempt, 5 * 60_000);
      o.warn(`poll failed (${(err as Error).message}); trying again in ${shortDuration(wait)}`);
      o.save(o.state);
      await sleep(wait, o.signal);
    }
  }
}

/** A page's records, kept as they arrive (a page is at most pageSize records). */
const collect = (): Digest<Row[]> => {
  const rows: Row[] = [];
  return { add: (row) => void rows.push(row), finish: () => rows };
};

const since = (bound: number): Record<string, unknown> => ({ lastmodified: { '>=': bound } });
const hashOf = (text: string): number => createHash('sha256').update(text).digest().readUIntBE(0, 6);
const lmOf = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) ? v : Number.MIN_SAFE_INTEGER);

async function poll(o: WatchOptions): Promise<void> {
  const { state: s, query, selection: sel } = o;
  // A record stamped in the future (an import, a clock jump on the service) would put every later change below
  // cursor - lag: a stamp ahead of this machine's clock counts as the clock (the lag covers the clocks' skew). A
  // cursor whose lower bound is ahead of the clock (only a hand can have put one there) is pulled back to it; one
  // only a little ahead (the clock stepped back since the last poll) is kept: it still asks for every change made
  // now, where pulled back it would ask again for records whose hashes the last poll dropped.
  const now = o.now;
  const local = now ? localClock(() => Math.floor(now() / 1000)) : undefined;
  if (local && s.cursor !== null && local.ahead(s.cursor - o.lagSeconds)) s.cursor = local.now;
  if (local && s.snapshot?.cursor != null && local.ahead(s.snapshot.cursor - o.lagSeconds)) s.snapshot.cursor = local.now;
  // An edge ahead of the clock (the clock stepped back further than the last poll's lag, or a hand) would keep every
  // change made now below the bound for good: dropped, at the cost of writing again what a narrower window dropped.
  if (local && s.edge !== null && local.ahead(s.edge)) s.edge = null;
  const bound = lowerBound(s, o.lagSeconds);
  const opts = { pageSize: o.pageSize, signal: o.signal };
  // A later poll's cursor: the stamps it fetched, each less the time its scan took to that page (one ahead of this
  // machine's clock counts as the clock).
  const scan = new ScanCursor(o.monotonic ?? (() => performance.now()));
  // The highest stamp this poll fetched: a first poll's cursor when the family was empty as it began and it wrote nothing.
  let latest: number | null = null;
  const pageSeen = (): ((lm: number) => void) => {
    const see = scan.page();
    return (seen) => {
      if (seen === Number.MIN_SAFE_INTEGER) return;
      const lm = local?.ahead(seen) ? local.now : seen;
      if (latest === null || lm > latest) latest = lm;
      see(lm);
    };
  };
  const first = !s.started;
  // A resumed first poll: the IDs known that match no more.
  let gone: readonly number[] = [];
  if (first) {
    // The first poll's cursor is the service's newest stamp as it begins, taken once (a resumed one keeps it).
    s.snapshot ??= { after: 0, cursor: (await newestStamp(o.fetch, local?.now ?? Number.MAX_SAFE_INTEGER, o.warn, o.signal)) ?? null, low: null };
    // The first poll (again, after an interrupted one) starts from the IDs matching now, saved before any
    // upsert; IDs known from the interrupted one that are gone get their delete after this poll's upserts
    // (unless pass 1 finds them again), as every poll writes its lines.
    const ids = await matchingIds(o);
    if (s.known.size === 0) s.known = ids;
    else {
      gone = s.known.minus(ids);
      s.known.addAll(ids);
    }
    o.save(s);
  }
  // A first poll goes on above the last ID it wrote; it keeps the hashes only of the records the next poll asks
  // for again (lastmodified at or after its bound), which nothing else brings back.
  const snapshot = first ? s.snapshot : null;
  const from = snapshot?.after ?? 0;
  const keepFrom = snapshot && snapshot.cursor !== null ? (lowerBound({ ...s, cursor: snapshot.cursor }, o.lagSeconds) ?? -Infinity) : -Infinity;
  // Asked before pass 1, so a record that changes between the two and still matches is in pass 1 as well.
  const changed = bound !== null && (query.filter || query.search) ? await changedIds(o, bound, pageSeen) : undefined;
  // What pass 1 returned, for the records that left (pass 2) and those gone that came back.
  const seen = new IdSet();
  const track = changed !== undefined || gone.length > 0;
  const upserts = upsertQuery(query, sel, bound);
  let pages = 0;
  for await (const page of pagesOf(o.fetch, upserts, { after: from, upTo: null }, from, opts, collect)) {
    const lines: string[] = [];
    const apply: (() => void)[] = [];
    const fresh: number[] = [];
    let low = snapshot?.low ?? null;
    const see = pageSeen();
    for (const row of page.item) {
      const id = Number(row[sel.idKey]);
      const lm = lmOf(row[sel.lmKey]);
      if (lm !== Number.MIN_SAFE_INTEGER && (low === null || lm < low)) low = lm;
      if (track) seen.add(id);
      see(lm);
      const text = JSON.stringify(shownRecord(row, sel));
      const hash = hashOf(text);
      const emitted = s.window.get(id);
      if (emitted?.hash !== hash) {
        lines.push(`{"op":"upsert","family":${JSON.stringify(o.family)},"record":${text}}\n`);
        if (!s.known.has(id)) fresh.push(id);
      }
      const keep = Math.max(lm, emitted?.lm ?? lm);
      apply.push(keep >= keepFrom ? () => void s.window.set(id, { lm: keep, hash }) : () => void s.window.delete(id));
    }
    if (snapshot && page.count > 0) {
      const last = page.last;
      apply.push(() => {
        snapshot.after = Math.max(snapshot.after, last);
        snapshot.low = low;
      });
    }
    if (fresh.length > 0) {
      // Known before they are written (a crash after the lines must not lose their deletes); a delete of an ID
      // whose line never went out is harmless, a delete missed is not.
      for (const id of fresh) s.known.add(id);
      o.save(s);
    }
    await writeLines(o, lines, apply);
    // A long first poll saves where it stands now and then: a kill -9 repeats at most the pages since.
    if (snapshot && ++pages % SNAPSHOT_SAVE_PAGES === 0) o.save(s);
  }
  // Pass 2 (the IDs that left the query): only above where a resumed first poll went on; the ones below it were
  // seen by the run it resumes, and a change since is stamped at or after its cursor, for the next poll. With the
  // deletes of a resumed first poll, in one rising series.
  const left = changed ? changed.minus(seen).filter((id) => id > from && s.known.has(id)) : [];
  await writeDeletes(o, union(left, gone.filter((id) => !seen.has(id) && s.known.has(id))));
  if (first) {
    s.sinceReconcile = 0; // it compared IDs as it started
  } else if (s.sinceReconcile + 1 >= o.reconcileEvery) {
    await reconcile(o, await matchingIds(o));
    s.sinceReconcile = 0;
  } else {
    s.sinceReconcile++;
  }
  // A first poll's cursor is the one it began with; when the family was empty then, the lowest stamp it wrote.
  // A later poll's, the highest of its stamps less the time to their pages (a change behind the scan is for the
  // next poll whatever --lag is; the records fetched again are the window's, not written twice).
  s.cursor = snapshot ? (snapshot.cursor ?? snapshot.low ?? latest) : scan.cursor(s.cursor);
  s.started = true;
  s.snapshot = null;
  pruneWindow(s, o.lagSeconds);
  o.save(s);
}

function filterOf(filter: Record<string, unknown> | undefined, bound: number | null): { filter?: Record<string, unknown> } {
  if (bound === null) return filter ? { filter } : {};
  return { filter: andCondition(filter, 'lastmodified', { '>=': bound }) };
}

/** Pass 1's query: the user's, for the records changed at or after the bound (null: every record). */
function upsertQuery(query: WatchQuery, sel: Selection, bound: number | null): PageQuery {
  return { filterMember: query.filterMember, ...filterOf(query.filter, bound), ...(query.search ? { search: query.search } : {}), ...(sel.fields ? { fields: sel.fields } : {}), idKey: sel.idKey };
}

/**
 * The body of the first page of pass 1 of the next poll from `state` (what --print-request shows: for a new
 * watch, its first poll's, with --since's bound), as poll() asks it.
 */
export function firstPageBody(query: WatchQuery, sel: Selection, state: WatchState, lagSeconds: number, pageSize: number): Record<string, unknown> {
  const from = state.started ? 0 : (state.snapshot?.after ?? 0);
  return pageBody(upsertQuery(query, sel, lowerBound(state, lagSeconds)), { after: from, upTo: null }, from, pageSize);
}

/** Two rising lists of IDs as one, each ID once. */
function union(a: readonly number[], b: readonly number[]): number[] {
  if (b.length === 0) return [...a];
  if (a.length === 0) return [...b];
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

/**
 * Pass 2: the IDs changed since the bound, whatever they hold. One the watch knows that pass 1 (asked after
 * this) did not return has left the query.
 */
async function changedIds(o: WatchOptions, bound: number, pageSeen: () => (lm: number) => void): Promise<IdSet> {
  const q: PageQuery = { filterMember: o.query.filterMember, filter: since(bound), fields: { ID: 'ID', lastmodified: 'lastmodified' }, idKey: 'ID' };
  const ids = new IdSet(); // rising, as pass 1's: both appended to ranges (a first poll from an old --since may see a million)
  for await (const page of pagesOf(o.fetch, q, ALL, 0, { pageSize: ID_PAGE, signal: o.signal }, collect)) {
    const see = pageSeen();
    for (const row of page.item) {
      ids.add(Number(row.ID));
      see(lmOf(row.lastmodified));
    }
  }
  return ids;
}

/** Pass 3: the IDs matching the query now (rising: each is appended to the set's ranges). */
async function matchingIds(o: WatchOptions): Promise<IdSet> {
  const ids = new IdSet();
  const q: PageQuery = { filterMember: o.query.filterMember, ...(o.query.filter ? { filter: o.query.filter } : {}), ...(o.query.search ? { search: o.query.search } : {}), fields: { ID: 'ID' }, idKey: 'ID' };
  for await (const page of pagesOf(o.fetch, q, ALL, 0, { pageSize: ID_PAGE, signal: o.signal }, collect)) for (const row of page.item) ids.add(Number(row.ID));
  return ids;
}

/** A known ID not matching any more was deleted. */
async function reconcile(o: WatchOptions, matching: IdSet): Promise<void> {
  await writeDeletes(o, o.state.known.minus(matching));
}

/** Writes a delete for each ID (rising), ID_PAGE lines at a time, forgetting each batch once it is out. */
async function writeDeletes(o: WatchOptions, all: readonly number[]): Promise<void> {
  const family = JSON.stringify(o.family);
  for (let i = 0; i < all.length; i += ID_PAGE) {
    const ids = all.slice(i, i + ID_PAGE);
    const lines = ids.map((id) => `{"op":"delete","family":${family},"record":{"ID":${id}}}\n`);
    await writeLines(o, lines, [
      () => {
        o.state.known.deleteSorted(ids);
        for (const id of ids) o.state.window.delete(id);
      },
    ]);
  }
}

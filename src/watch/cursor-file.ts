/**
 * The cursor file of `svc <family> watch --cursor-file FILE`: the watch's
 * state as JSON, written whole (util/atomic-file.ts) after each poll's lines
 * are out, read back strictly. It names the instance of the service, the
 * family and the query (filter, search, fields as typed) it belongs to, so it
 * never resumes another watch. (A file from before it named the instance is
 * taken by the first instance that resumes it, and names it from then on. A
 * local sandbox's, through a profile that records its data dir, follows it to
 * another loopback port; a query saved in an older form, `--fields key=ID`,
 * is read as today's `ID`.)
 * A file svc could not have written (a link, a directory, too large, not
 * JSON, members missing or of the wrong kind) is refused, never guessed at.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { replaceFile } from '../util/atomic-file.js';
import { IdSet } from './id-set.js';
import type { Emitted, WatchState } from './state.js';
import { shown } from '../util/shown.js';

const FORMAT = 'svc-watch-cursor';
const VERSION = 1;
/** Larger than any cursor file svc writes for a family it can hold in memory. */
export const MAX_CURSOR_BYTES = 256 * 1024 * 1024;
/** The most IDs the known set may hold (about 1 GB of memory at the most). */
const MAX_KNOWN_IDS = 20_000_000;

/** What a cursor file is tied to: the family and the query as typed. */
export type Fingerprint = Readonly<Record<string, unknown>>;

/** The file as JSON. */
interface CursorJson {
  format: string;
  version: number;
  family: string;
  query: Fingerprint;
  /** The instance URL (absent from files written before it was recorded: null). */
  instance: string | null;
  cursor: number | null;
  floor: number | null;
  started: boolean;
  sinceReconcile: number;
  /** [after, cursor, low] while the first poll runs, else null (absent from files written before snapshots resumed: null). */
  snapshot: [number, number | null, number | null] | null;
  known: number[];
  window: [number, number, number][];
  /** The window's edge (absent from files written before it: null). */
  edge: number | null;
}

/** What a cursor file belongs to: the instance (its URL), the family, the query as typed. */
export interface CursorOwner {
  readonly instance: string;
  readonly family: string;
  readonly query: Fingerprint;
  /**
   * The instance is a local sandbox's that may come back at another port (its profile records the sandbox's
   * data dir): a file of the same instance path at another loopback address is resumed, and re-stamped.
   */
  readonly movable?: boolean;
}

/** A cursor file's state, and what the file says that the next save changes (the caller tells the user, and saves). */
export interface LoadedCursor {
  readonly state: WatchState;
  /** The instance URL the file named, when it was resumed at the sandbox's new address. */
  readonly movedFrom?: string;
  /** The file's query was written in an older form (its next save writes this one's). */
  readonly olderForm: boolean;
}

/** Writes the state (atomically, mode 0600): a reader sees the previous state or this one. */
export function saveCursor(path: string, owner: CursorOwner, state: WatchState): void {
  const json: CursorJson = {
    format: FORMAT,
    version: VERSION,
    family: owner.family,
    query: owner.query,
    instance: owner.instance,
    cursor: state.cursor,
    floor: state.floor,
    started: state.started,
    sinceReconcile: state.sinceReconcile,
    snapshot: state.snapshot ? [state.snapshot.after, state.snapshot.cursor, state.snapshot.low] : null,
    known: state.known.ranges(),
    window: [...state.window].map(([id, e]) => [id, e.lm, e.hash]),
    edge: state.edge,
  };
  replaceFile(path, `${JSON.stringify(json)}\n`, 0o600);
}

const damaged = (path: string, why: string): UsageError =>
  new UsageError(`the cursor file ${shown(path)} is damaged (${shown(why)}); remove it to start the watch afresh`);

/** The state a cursor file holds, undefined when there is none; refuses a file that is not a cursor of this watch. */
export function loadCursor(path: string, owner: CursorOwner): LoadedCursor | undefined {
  const { family, query, instance } = owner;
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the cursor file ${shown(path)}: ${shown((err as Error).message)}`);
  }
  if (st.isSymbolicLink()) throw new UsageError(`the cursor file ${shown(path)} is a symbolic link; give the path of a regular file`);
  if (!st.isFile()) throw new UsageError(`the cursor file ${shown(path)} is not a regular file; give another path`);
  if (st.size > MAX_CURSOR_BYTES) throw damaged(path, `${st.size} bytes, more than svc ever writes`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw damaged(path, `not JSON: ${(err as Error).message}`);
  }
  const json = asCursorJson(value, (why) => damaged(path, why));
  if (json.family !== family) throw new UsageError(`the cursor file ${shown(path)} belongs to a watch of ${shown(json.family)}, not ${family}; give another --cursor-file`);
  const moved = json.instance !== null && json.instance !== instance && owner.movable === true && sameSandbox(json.instance, instance);
  if (json.instance !== null && json.instance !== instance && !moved) {
    throw new UsageError(`the cursor file ${shown(path)} belongs to a watch of the instance ${shown(json.instance)}, not ${shown(instance)}; point svc at that instance (--profile, --url or SVC_URL), or give another --cursor-file (the same instance at a new address: change "instance" in the file)`);
  }
  const older = upgradedQuery(json.query);
  if (!sameQuery(older, query)) {
    throw new UsageError(`the cursor file ${shown(path)} belongs to a watch with other options (${shown(canonical(json.query))}); use the same --filter, --search and --fields, or another --cursor-file`);
  }
  const state: WatchState = {
    cursor: json.cursor,
    floor: json.floor,
    started: json.started,
    sinceReconcile: json.sinceReconcile,
    snapshot: json.snapshot ? { after: json.snapshot[0], cursor: json.snapshot[1], low: json.snapshot[2] } : null,
    window: new Map(json.window.map(([id, lm, hash]): [number, Emitted] => [id, { lm, hash }])),
    edge: json.edge,
    known: IdSet.fromRanges(json.known),
  };
  return { state, ...(moved && json.instance !== null ? { movedFrom: json.instance } : {}), olderForm: older !== json.query };
}

/** Plain HTTP on the loopback interface (the sandbox's own addresses). */
function loopback(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return url.protocol === 'http:' && (host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host));
}

/** Whether two instance URLs are one local sandbox at two addresses: both loopback, the same instance path. */
function sameSandbox(saved: string, now: string): boolean {
  try {
    const [a, b] = [new URL(saved), new URL(now)];
    return loopback(a) && loopback(b) && a.pathname.replace(/\/+$/, '') === b.pathname.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

/**
 * The saved query in today's form: an svc before the ID was always "ID" accepted it under an alias
 * (`--fields key=ID,…`), which is now given as ID. The same object when nothing changed.
 */
function upgradedQuery(saved: Fingerprint): Fingerprint {
  const fields = saved.fields;
  if (typeof fields !== 'string') return saved;
  const upgraded = fields
    .split(',')
    .map((part) => part.replace(/^(\s*)[^=\s][^=]*=\s*ID(\s*)$/, '$1ID$2'))
    .join(',');
  return upgraded === fields ? saved : { ...saved, fields: upgraded };
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isSeconds = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isSecondsOrNull = (v: unknown): v is number | null => v === null || isSeconds(v);

/** Checks every member: the shape svc writes, nothing else (own members only; prototype keys are just unknown members). */
function asCursorJson(v: unknown, fail: (why: string) => Error): CursorJson {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fail('not an object');
  const o = v as Record<string, unknown>;
  const own = (k: string): unknown => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);
  if (own('format') !== FORMAT) throw fail(`not a watch cursor`);
  if (own('version') !== VERSION) throw fail(`version ${shown(String(own('version')))}, this svc reads ${VERSION}`);
  const family = own('family');
  const query = own('query');
  if (typeof family !== 'string') throw fail('no family');
  if (typeof query !== 'object' || query === null || Array.isArray(query)) throw fail('no query');
  const [cursor, floor, started, sinceReconcile] = [own('cursor'), own('floor'), own('started'), own('sinceReconcile')];
  if (!isSecondsOrNull(cursor) || !isSecondsOrNull(floor)) throw fail('cursor or floor not a number of seconds');
  if (typeof started !== 'boolean' || !isId(sinceReconcile)) throw fail('started or sinceReconcile of the wrong kind');
  const snapshot = own('snapshot') ?? null;
  const edge = own('edge') ?? null;
  const instance = own('instance') ?? null;
  if (instance !== null && typeof instance !== 'string') throw fail('instance not a URL');
  if (!isSecondsOrNull(edge) || (edge !== null && !started)) throw fail('edge not a number of seconds of a watch past its first poll');
  if (snapshot !== null && (!Array.isArray(snapshot) || snapshot.length !== 3 || !isId(snapshot[0]) || !isSecondsOrNull(snapshot[1]) || !isSecondsOrNull(snapshot[2]) || started)) {
    throw fail('snapshot not [ID, lastmodified or null, lastmodified or null] of a first poll');
  }
  return { format: FORMAT, version: VERSION, family, query: query as Fingerprint, instance, cursor, floor, started, sinceReconcile, snapshot: snapshot as [number, number | null, number | null] | null, known: checkRanges(own('known'), fail), window: checkWindow(own('window'), fail), edge };
}

function checkRanges(v: unknown, fail: (why: string) => Error): number[] {
  if (!Array.isArray(v) || v.length % 2 !== 0) throw fail('known IDs not a list of ranges');
  let total = 0;
  let previous = -2;
  for (let i = 0; i < v.length; i += 2) {
    const [start, end] = [v[i] as unknown, v[i + 1] as unknown];
    if (!isId(start) || !isId(end) || start > end || start <= previous + 1) throw fail(`known IDs: range ${i / 2 + 1} is not a rising range of IDs`);
    total += end - start + 1;
    if (total > MAX_KNOWN_IDS) throw fail(`more than ${MAX_KNOWN_IDS} known IDs`);
    previous = end;
  }
  return v as number[];
}

function checkWindow(v: unknown, fail: (why: string) => Error): [number, number, number][] {
  if (!Array.isArray(v)) throw fail('window not a list');
  for (const e of v) {
    if (!Array.isArray(e) || e.length !== 3 || !isId(e[0]) || !isSeconds(e[1]) || !isId(e[2])) {
      throw fail('window: an entry is not [ID, lastmodified, hash]');
    }
  }
  return v as [number, number, number][];
}

/** Members of the query an older svc did not record (the hash of a filter read from stdin): a file without one resumes, and the next save records it. */
const RECORDED_LATER = ['filterFileSha256'];

/** Whether the saved query is this one. */
function sameQuery(saved: Fingerprint, query: Fingerprint): boolean {
  const missing = RECORDED_LATER.filter((k) => !Object.prototype.hasOwnProperty.call(saved, k));
  return canonical(saved) === canonical(Object.fromEntries(Object.entries(query).filter(([k]) => !missing.includes(k))));
}

/** JSON with sorted keys, so two fingerprints compare by content. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}


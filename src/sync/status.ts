/**
 * `--status`: what a copy holds, as read from its state table without asking
 * the service. As JSON each family's facts with Unix seconds (as the
 * summaries and the service give times); in a table, ISO date-times in UTC.
 */
import type { ObjectView, RecordsView, Row } from '../output/view.js';
import { isoSeconds } from '../util/expiry.js';
import { describeFilter, parseFilter, type RememberedFilter } from './engine.js';
import type { HeldCopy } from './store.js';

/**
 * The sync running into the target as `--status` read it: the holder its lock
 * names (null members: the lock does not say). The lock covers the file, not
 * a family: the same for each family shown.
 */
export interface SyncRunning {
  readonly pid: number | null;
  readonly host: string | null;
  /** When it took the lock (Unix seconds). */
  readonly since: number | null;
  /** Its command line. */
  readonly command: string | null;
}

/** One family's state as `--status` shows it. */
export interface FamilyStatus {
  readonly family: string;
  /** Live rows in the table (null: the table could not be counted). */
  readonly rows: number | null;
  /** Rows marked deleted under --keep-deleted (null otherwise). */
  readonly deleted: number | null;
  /** 'ready': the copy is whole; 'initial': the first pass has copied the records up to afterId. */
  readonly phase: 'ready' | 'initial';
  readonly afterId: number | null;
  readonly cursor: number | null;
  readonly runs: number;
  readonly lastRun: number;
  readonly lastReconcile: number | null;
  readonly runsSinceReconcile: number;
  /** The remembered filter flags; the stored text when it is not what svc wrote. */
  readonly filter: RememberedFilter | string;
  /** The remembered --fields ('' for every field). */
  readonly fields: string;
  readonly keepDeleted: boolean;
  readonly svcVersion: string;
  /** The sync running into the target as it was read (null: none). */
  readonly running: SyncRunning | null;
}

/** A family's status from its held copy, and the sync running into the target (null: none). */
export function familyStatus(held: HeldCopy, running: SyncRunning | null = null): FamilyStatus {
  const { state } = held;
  let filter: RememberedFilter | string;
  try {
    filter = parseFilter(state.filter, state.family);
  } catch {
    filter = state.filter;
  }
  return {
    family: state.family,
    rows: held.rows,
    deleted: held.deleted,
    phase: state.phase,
    afterId: state.phase === 'initial' ? state.afterId : null,
    cursor: state.cursor,
    runs: state.runs,
    lastRun: state.updatedAt,
    lastReconcile: state.lastReconcile,
    runsSinceReconcile: state.runsSinceReconcile,
    filter,
    fields: state.fields,
    keepDeleted: state.keepDeleted,
    svcVersion: state.svcVersion,
    running,
  };
}

const time = (v: unknown): string => (typeof v === 'number' ? isoSeconds(v) : '');

/** The columns of a table of statuses, and the labels of one status's details, with their text. */
const FIELDS: readonly { key: keyof FamilyStatus; header: string; text: (s: FamilyStatus) => string }[] = [
  { key: 'family', header: 'family', text: (s) => s.family },
  { key: 'rows', header: 'rows', text: (s) => (s.rows === null ? '?' : String(s.rows)) + (s.deleted ? ` (+${s.deleted} marked deleted)` : '') },
  { key: 'phase', header: 'state', text: (s) => (s.phase === 'ready' ? 'whole' : `first pass, up to ID ${s.afterId ?? 0}`) },
  { key: 'lastRun', header: 'last run', text: (s) => time(s.lastRun) },
  { key: 'cursor', header: 'cursor', text: (s) => time(s.cursor) },
  { key: 'runs', header: 'runs', text: (s) => String(s.runs) },
  { key: 'lastReconcile', header: 'IDs compared', text: (s) => (s.lastReconcile === null ? 'never' : time(s.lastReconcile)) },
  { key: 'filter', header: 'filter', text: (s) => (typeof s.filter === 'string' ? s.filter : describeFilter(s.filter)) },
  { key: 'fields', header: 'fields', text: (s) => s.fields || 'every field' },
];

/** Several families' statuses: an array as JSON, a row each in a table. */
export function statusesView(list: readonly FamilyStatus[]): RecordsView {
  return {
    kind: 'records',
    columns: FIELDS.map((f) => ({ key: f.key, header: f.header, text: (_v: unknown, row: Row) => f.text(row as unknown as FamilyStatus) })),
    rows: list.map((s) => ({ ...s })),
  };
}

/** One family's status: an object as JSON, labelled lines in a table. */
export function statusView(s: FamilyStatus): ObjectView {
  return { kind: 'object', value: { ...s }, details: FIELDS.map((f) => [f.header, f.text(s)] as const) };
}

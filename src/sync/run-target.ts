/**
 * One sync run into one target, for one family or several: the target
 * checked and locked, the database opened, each family kept in step in turn,
 * and the summaries answered. What the commands share (src/commands/records/sync
 * and src/commands/sync); they give the connection, the filters and the streams.
 */
import { interruptSignal, type OnceSignal } from '../util/interrupt.js';
import type { ResourceFamily } from '../catalogue/index.js';
import type { FetchRows } from '../export/pager.js';
import type { Progress } from '../export/progress.js';
import type { ObjectView, RecordsView } from '../output/view.js';
import type { LockProcesses } from '../util/file-lock.js';
import { syncFamily, type SyncJob, type SyncSummary } from './engine.js';
import type { SyncFlags } from './flags.js';
import { openStore } from './open.js';
import { engineFailure, inUse } from './store.js';
import { checkTarget, lockSyncTarget } from './target.js';

/** One family of a run: what its flags gave, and how its settings compile. */
export type FamilyRequest = Pick<SyncJob, 'family' | 'given' | 'compile' | 'resetKeeps'>;

export interface TargetJob {
  readonly flags: SyncFlags;
  readonly families: readonly FamilyRequest[];
  /** The command line, written in the lock file. */
  readonly command: string;
  readonly filterMember: 'filter' | 'filters';
  fetchFor(family: ResourceFamily): FetchRows;
  /** A count query for a family: its body (with `count: true`) → the count. */
  countFor(family: ResourceFamily): (body: Record<string, unknown>) => Promise<number>;
  readonly signal: AbortSignal;
  /** SVC_SYNC_LEAF: ranges of at most this many held IDs are compared ID by ID (tests make it small). */
  readonly leaf?: number;
  readonly processes?: LockProcesses;
  now(): number;
  /** Milliseconds on a clock that is never stepped (durations). */
  monotonic(): number;
  warn(message: string): void;
  /** A progress line for a family (absent: none). */
  progressFor?(family: ResourceFamily): Progress;
  /** Told each family's summary as soon as its copy is committed (before the next family starts). */
  finished?(summary: SyncSummary): Promise<void> | void;
}

/** SVC_SYNC_LEAF from the environment, when it is a whole number above 0. */
export function leafFromEnv(env: Readonly<Record<string, string | undefined>>): { leaf?: number } {
  const n = Number(env.SVC_SYNC_LEAF);
  return Number.isSafeInteger(n) && n > 0 ? { leaf: n } : {};
}

/** Aborts on the first SIGINT or SIGTERM with the error to report (exit 130), saying what the copy keeps. */
export function syncInterruptSignal(onceSignal: OnceSignal | undefined): AbortSignal {
  return interruptSignal(onceSignal, '; the copy holds every page written before it');
}

/** Runs the families into the target in turn; the copy stays at its last committed page on any failure. */
export async function runTarget(job: TargetJob): Promise<SyncSummary[]> {
  const { flags } = job;
  checkTarget(flags.into);
  job.signal.throwIfAborted();
  const lock = lockSyncTarget(flags.into, job.command, job.processes, () => job.now());
  try {
    const store = await openStore(flags.into);
    try {
      const summaries: SyncSummary[] = [];
      for (const f of job.families) {
        const progress = job.progressFor?.(f.family);
        try {
          summaries.push(
            await syncFamily({
              ...f,
              store,
              reset: flags.reset,
              filterMember: job.filterMember,
              lagSeconds: flags.lagSeconds,
              concurrency: flags.concurrency,
              pageSize: flags.pageSize,
              reconcileEvery: flags.reconcileEvery,
              fetch: job.fetchFor(f.family),
              count: job.countFor(f.family),
              ...(job.leaf ? { leaf: job.leaf } : {}),
              signal: job.signal,
              now: () => job.now(),
              monotonic: () => job.monotonic(),
              warn: (m) => job.warn(`${f.family.name}: ${m}`),
              ...(progress ? { progress: (n: number) => progress.update(n) } : {}),
            }),
          );
        } catch (err) {
          throw inUse(flags.into, err) ?? engineFailure(flags.into, f.family.name, store.kind, err) ?? err;
        } finally {
          progress?.clear();
        }
        await job.finished?.(summaries[summaries.length - 1] as SyncSummary);
      }
      return summaries;
    } catch (err) {
      throw inUse(flags.into, err) ?? err;
    } finally {
      await store.close();
    }
  } finally {
    lock.release();
  }
}

const COLUMNS = ['family', 'inserted', 'updated', 'deleted', 'pages', 'seconds', 'cursor'] as const;

/** One family's summary: an object as JSON, labelled lines in a table. */
export function summaryView(s: SyncSummary): ObjectView {
  return { kind: 'object', value: { ...s }, details: COLUMNS.map((k) => [k, String(s[k] ?? '')] as const) };
}

/** Several families' summaries: an array as JSON, a row each in a table. */
export function summariesView(list: readonly SyncSummary[]): RecordsView {
  return { kind: 'records', columns: COLUMNS.map((key) => ({ key })), rows: list.map((s) => ({ ...s })) };
}

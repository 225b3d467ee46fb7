/**
 * What running a bulk write needs (import, and update and delete with
 * --filter; their flags are in bulk-flags.ts): the confirmation, what stops them
 * (Ctrl-C, SIGTERM: no new row is started, the rows in flight get a grace
 * period to finish and are then cut off), how a failed write is classified,
 * and the tally that becomes the summary on stderr.
 */
import type { ResourceFamily } from '../../catalogue/index.js';
import type { Context } from '../../cli/context.js';
import type { Deps } from '../../cli/deps.js';
import { ask, canPrompt } from '../../cli/prompt.js';
import { AuthError, InterruptedError, SvcError, UsageError } from '../../errors.js';
import { HttpStatusError, NetworkError } from '../../http/errors.js';
import { runPool } from '../../import/pool.js';
import type { ResultLine, ResultsWriter } from '../../import/results.js';
import { MAX_TIMER_MS, parseDuration } from '../../util/duration.js';
import { GRACE_MS } from './bulk-flags.js';

/** Failed rows named on stderr at most; the rest are counted (and all are in --results). */
const SHOWN_FAILURES = 20;

/**
 * Asks before a bulk write on a terminal (unless --yes); without a terminal
 * --yes is required: a usage error naming it, before anything is written.
 */
export async function confirmBulk(ctx: Context, what: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!canPrompt(ctx.deps)) throw new UsageError(`${what} needs confirmation and there is no terminal to ask on; pass --yes`);
  const answer = (await ask(ctx.deps, `${what}? [y/N]`)).toLowerCase();
  if (answer !== 'y' && answer !== 'yes') throw new SvcError(`nothing was written (answer y to go ahead, or pass --yes)`);
}

/** What stops a bulk write: the first SIGINT, SIGTERM or SIGHUP. */
export interface StopControl {
  /** True once a signal came: start no more rows. */
  stopped(): boolean;
  /** Aborted when the grace period after the signal ran out: requests still in flight are cut off. */
  readonly signal: AbortSignal;
  /** The signal's name, once one came. */
  readonly by: string | undefined;
  /** Resolves when a signal comes (ends a wait between tries early). */
  readonly whenStopped: Promise<void>;
  /** Stops the grace timer (the run is over). */
  dispose(): void;
  /** From now on rows are written: a signal starts the grace period (before, it aborts `signal` at once). */
  writing(): void;
}

/** The grace period: SVC_BULK_GRACE (a duration, e.g. 30s), else GRACE_MS. */
export function graceOf(deps: Deps): number {
  const env = deps.env.SVC_BULK_GRACE;
  return env ? parseDuration(env, 'SVC_BULK_GRACE', MAX_TIMER_MS) : GRACE_MS;
}

/**
 * Listens for SIGINT, SIGTERM and SIGHUP. Installed before a bulk write takes its results lock, so that a signal
 * while it reads and looks up (`writes: false`, until `writing()`) ends it at once, exit 130, lock removed;
 * once rows are written, a signal starts the grace period instead.
 */
export function stopOnSignals(deps: Deps, graceMs = graceOf(deps), { writes = true }: { writes?: boolean } = {}): StopControl {
  const controller = new AbortController();
  let by: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake = (): void => undefined;
  let rows = writes;
  const whenStopped = new Promise<void>((resolve) => (wake = resolve));
  const on = (signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP') => (): void => {
    if (by) return;
    by = signal;
    wake();
    if (!rows) {
      controller.abort(new InterruptedError(`interrupted by ${signal} before this run wrote anything`));
      return;
    }
    deps.stderr.write(`svc: ${signal}: starting no more rows; waiting up to ${graceMs / 1000} s for those in flight (SVC_BULK_GRACE)\n`);
    timer = setTimeout(() => controller.abort(new InterruptedError(`interrupted by ${signal}`)), graceMs);
  };
  deps.processes?.onceSignal('SIGINT', on('SIGINT'));
  deps.processes?.onceSignal('SIGTERM', on('SIGTERM'));
  // A closed terminal or a dropped ssh connection: the rows in flight finish and the results are kept, as for SIGTERM.
  deps.processes?.onceSignal('SIGHUP', on('SIGHUP'));
  return {
    stopped: () => by !== undefined,
    signal: controller.signal,
    get by() {
      return by;
    },
    whenStopped,
    dispose: () => clearTimeout(timer),
    writing: () => void (rows = true),
  };
}

/** `work`, unless a signal stops the run first (before its rows: see stopOnSignals): then the signal's InterruptedError. */
export function unlessStopped<T>(work: Promise<T>, stop: Pick<StopControl, 'signal'>): Promise<T> {
  const { signal } = stop;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

/** Network failures that mean nothing reached the service: a write may be sent again. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'SVC_CONNECT_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** How a write failed: answered (with its status), never sent, or sent without a known outcome. */
export type Failure =
  | { readonly kind: 'answered'; readonly status: number; readonly message: string }
  | { readonly kind: 'not-sent'; readonly message: string }
  | { readonly kind: 'unknown'; readonly message: string };

/** Classifies a write's error; anything not from the HTTP client (a bug, a full disk) is thrown again. */
export function failureOf(err: unknown): Failure {
  if (err instanceof HttpStatusError) return { kind: 'answered', status: err.status, message: err.message };
  if (err instanceof NetworkError) return NOT_SENT.has(err.code ?? '') ? { kind: 'not-sent', message: err.message } : { kind: 'unknown', message: err.message };
  if (err instanceof InterruptedError) return { kind: 'unknown', message: `${err.message} before the answer came` };
  throw err;
}

/**
 * Stops a bulk write whose token the service refused (401), or whose user it
 * refused permission (403): every other row would fail the same way. A 403 is
 * that one record's only where the family lets a record's creator alone
 * change it (and never for a create). Its line is written first; exit 4.
 */
export function refusedToken(r: ResultLine, family: ResourceFamily): void {
  const at = r.line !== undefined ? `line ${r.line}` : `record ${r.id ?? '?'}`;
  const again = r.line !== undefined ? ' with --resume' : '';
  if (r.status === 401) throw new AuthError(`the service refused the token (401) at ${at}; run svc login, then run again${again}`);
  const perRecord = r.action !== 'create' && (family.permissions.write?.creatorOnly === true || family.permissions.read.creatorOnly);
  if (r.status === 403 && !perRecord) {
    throw new AuthError(`the service refused permission (403) at ${at}, as it would for every other one: the token's user may not write ${family.name}; use a token of a user who may, then run again${again}`);
  }
}

/**
 * Writes every item, `concurrency` at a time, until the run is stopped: each result line goes to the
 * tally and the results file (when there is one) as it comes, and a refused token or permission ends the
 * run, as does a results file that cannot be written. Resolves to the error that ended it early, if one
 * did (reported after the summary).
 */
export function writeEach<T>(
  items: Iterable<T> | AsyncIterable<T>,
  concurrency: number,
  stop: Pick<StopControl, 'stopped'>,
  out: { readonly writer?: ResultsWriter | undefined; readonly tally: Tally; readonly family: ResourceFamily },
  work: (item: T) => Promise<ResultLine>,
): Promise<{ err: unknown } | undefined> {
  return runPool(
    items,
    concurrency,
    async (item) => {
      const r = await work(item);
      // Counted first: the summary says what was done even when its line cannot be written.
      out.tally.add(r);
      out.writer?.write(r);
      refusedToken(r, out.family);
    },
    stop.stopped,
  ).then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
}

/** Counts of a bulk write, the failures to name, and the summary line. */
export class Tally {
  readonly counts = { created: 0, updated: 0, deleted: 0, unchanged: 0, failed: 0, unknown: 0, skipped: 0 };
  private readonly failures: string[] = [];
  private hidden = 0;

  /** Counts a result line; failures (and unknown outcomes) are kept to be named. */
  add(r: ResultLine): void {
    const c = this.counts;
    if (r.action === 'skip') c.skipped++;
    else if (r.action === 'unknown') c.unknown++;
    else if (r.error !== null) c.failed++;
    else if (r.action === 'create') c.created++;
    else if (r.action === 'update') c.updated++;
    else if (r.action === 'delete') c.deleted++;
    else c.unchanged++;
    if (r.error === null || r.action === 'skip') return;
    const where = r.line !== undefined ? `line ${r.line}` : `${r.id ?? '?'}`;
    if (this.failures.length < SHOWN_FAILURES) this.failures.push(`  ${where}: ${r.action === 'unknown' ? 'outcome unknown' : `${r.action} failed`}: ${r.error}\n`);
    else this.hidden++;
  }

  /** Whether every row succeeded (skipped invalid rows were asked to be skipped). */
  get ok(): boolean {
    return this.counts.failed === 0 && this.counts.unknown === 0;
  }

  /**
   * The failures, then the summary `<head>: 3 created, 1 failed, …` on stderr:
   * each part is a count, its word, and whether it is shown when zero.
   */
  report(deps: Deps, head: string, parts: readonly (readonly [number, string, boolean])[], results: string | undefined): void {
    for (const f of this.failures) deps.stderr.write(f);
    if (this.hidden > 0) deps.stderr.write(`  … and ${this.hidden} more${results ? ` (all in ${results})` : ''}\n`);
    const shown = parts.filter(([n, , always]) => n > 0 || always).map(([n, word]) => `${n.toLocaleString('en-US')} ${word}`);
    deps.stderr.write(`${head}: ${shown.join(', ')}\n`);
  }
}

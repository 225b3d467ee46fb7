/**
 * One planned row, written: its result line. An update is a PATCH of the
 * row's values, which is safe to repeat, so the HTTP client may retry it. A
 * create is never sent twice blindly: it is sent again only when the service
 * refused it (429, 503) or the connection was never made. When its answer is
 * lost (a dropped connection, a 502 or 504) it is looked up by --key: found,
 * it is recorded as created; not found, as unknown, never sent again in this
 * run, since a gateway that gave up does not stop the service from committing
 * the create a moment later ("not found yet" is not "not created"); a later
 * --resume looks it up again. Without a key it is recorded as unknown.
 */
import type { ResourceFamily } from '../../../catalogue/index.js';
import type { HttpClient } from '../../../http/client.js';
import type { RowPlan } from '../../../import/plan.js';
import type { ResultLine } from '../../../import/results.js';
import { failureOf, type Failure, type StopControl } from '../write-bulk.js';
import { writeRecord } from '../write-send.js';

/** What writing rows needs. */
export interface RowWriter {
  readonly client: HttpClient;
  readonly family: ResourceFamily;
  readonly key?: string;
  readonly stop: StopControl;
  /** Further tries of a create the service refused (the global --retries, default 3). */
  readonly retries: number;
  /** The records (IDs) with this key value now. */
  readonly lookup: (value: unknown) => Promise<readonly Record<string, unknown>[]>;
  /** Called just before a create is sent (the results file's `sending` line). */
  readonly sending: (line: number) => void;
}

type Base = Pick<ResultLine, 'line'>;

function failed(base: Base, action: 'create' | 'update', f: Failure, id: number | null = null): ResultLine {
  return { ...base, action, id, status: f.kind === 'answered' ? f.status : null, etag: null, error: f.message };
}

/** Waits before another try (full-jitter backoff), or less when Ctrl-C comes. */
async function pause(w: RowWriter, attempt: number): Promise<void> {
  const ms = Math.round(Math.random() * Math.min(8000, 250 * 2 ** attempt));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([new Promise<void>((r) => (timer = setTimeout(r, ms))), w.stop.whenStopped]);
  clearTimeout(timer);
}

/** After a lost answer: the record made by this create, looked up by key; undefined when it was not made. */
async function lookForCreated(w: RowWriter, base: Base, plan: Extract<RowPlan, { kind: 'create' }>, f: Failure): Promise<ResultLine | undefined> {
  let found: readonly Record<string, unknown>[];
  try {
    found = await w.lookup(plan.row.body[w.key as string]);
  } catch (err) {
    const g = failureOf(err);
    return { ...base, action: 'unknown', id: null, status: null, etag: null, error: `${f.message}; the lookup by ${w.key} failed too (${g.message}); --resume checks it again` };
  }
  if (found.length === 1) return { ...base, action: 'create', id: Number(found[0]?.ID), status: null, etag: null, error: null };
  if (found.length > 1) return { ...base, action: 'create', id: null, status: null, etag: null, error: `${f.message}; ${found.length} records now have ${w.key} = ${JSON.stringify(plan.row.body[w.key as string])}` };
  return undefined;
}

async function create(w: RowWriter, plan: Extract<RowPlan, { kind: 'create' }>): Promise<ResultLine> {
  const base: Base = { line: plan.row.line };
  for (let attempt = 0; ; attempt++) {
    w.sending(plan.row.line);
    let f: Failure;
    try {
      const a = await writeRecord(w.client, w.family, undefined, { method: 'PUT', json: plan.row.body, signal: w.stop.signal });
      return { ...base, action: 'create', id: a.record?.ID === undefined ? null : Number(a.record.ID), status: a.status ?? null, etag: a.etag ?? null, error: null };
    } catch (err) {
      f = failureOf(err);
    }
    const more = attempt < w.retries && !w.stop.stopped();
    const refused = f.kind === 'not-sent' || (f.kind === 'answered' && (f.status === 429 || f.status === 503));
    const lost = f.kind === 'unknown' || (f.kind === 'answered' && (f.status === 502 || f.status === 504));
    if (refused && more) {
      await pause(w, attempt);
      if (w.stop.stopped()) return failed(base, 'create', f);
      continue;
    }
    if (!lost) return failed(base, 'create', f);
    if (w.key === undefined || w.stop.signal.aborted) {
      return { ...base, action: 'unknown', id: null, status: null, etag: null, error: `${f.message}; whether the record was created is unknown${w.key === undefined ? ' (import with --key to let svc check)' : ''}` };
    }
    const settled = await lookForCreated(w, base, plan, f);
    if (settled) return settled;
    return { ...base, action: 'unknown', id: null, status: null, etag: null, error: `${f.message}; no record has this ${w.key} yet, but the service may still be creating it: not sent again now; a later run (--resume) looks it up again and creates it only if it is still missing` };
  }
}

/** Writes one planned row and answers its result line (rows decided in advance need no request). */
export async function writeRow(w: RowWriter, plan: RowPlan): Promise<ResultLine> {
  const base: Base = { line: plan.row.line };
  switch (plan.kind) {
    case 'invalid':
      return { ...base, action: 'skip', id: null, status: null, etag: null, error: plan.problems.join('; ') };
    case 'fail':
      return { ...base, action: plan.id === undefined && w.key === undefined ? 'create' : 'update', id: plan.id === undefined ? null : Number(plan.id), status: null, etag: null, error: plan.error };
    case 'unchanged':
      return { ...base, action: 'unchanged', id: Number(plan.id), status: null, etag: null, error: null };
    case 'found':
      return { ...base, action: 'create', id: Number(plan.id), status: null, etag: null, error: null };
    case 'create':
      return create(w, plan);
    case 'update':
      try {
        const a = await writeRecord(w.client, w.family, plan.id, { method: 'PATCH', json: plan.row.body, idempotent: true, signal: w.stop.signal });
        return { ...base, action: 'update', id: Number(plan.id), status: a.status ?? null, etag: a.etag ?? null, error: null };
      } catch (err) {
        return failed(base, 'update', failureOf(err), Number(plan.id));
      }
  }
}

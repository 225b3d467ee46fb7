/**
 * What an import's results file says about an earlier run of it: which rows
 * are done (skipped now), which had a create in flight or an unknown outcome
 * (checked again by key, else left unknown), and whether a fresh run would
 * overwrite an unfinished one (refused). The state file beside the results
 * ties them to the same family, key and input.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../../../errors.js';
import { isDone, readResults, type ReadLine, type ResultLine } from '../../../import/results.js';
import { readState, statePath, type ImportState } from '../../../import/state.js';
import type { ImportOptions } from './options.js';

/** The earlier runs of this import, as far as they decide this one. */
export interface Prior {
  /** The state to keep (resume) or undefined (a fresh start). */
  readonly state?: ImportState;
  /** Rows done for good earlier: not processed again. */
  readonly done: ReadonlySet<number>;
  /** Rows whose create may have happened: re-checked by key (with --key). */
  readonly recheck: ReadonlySet<number>;
  /** Rows that stay unknown (no key to check them by); `sending` ones still need their line. */
  readonly unknown: ReadonlyMap<number, ReadLine>;
}

/** No earlier run: every row to do. */
export const FRESH: Prior = { done: new Set(), recheck: new Set(), unknown: new Map() };

/** Reads the results file and its state for `opts`; a fresh run over an unfinished import is a usage error. */
export function priorRun(opts: ImportOptions, results: string, sha256: string): Prior {
  const state = readState(results);
  if (!state) return FRESH;
  if (!opts.resume) {
    throw new UsageError(`${results} records an unfinished import (${state.input.name}, since ${state.since}); pass --resume to continue it, or remove ${results} and ${statePath(results)} to start afresh`);
  }
  if (state.family !== opts.family.name || state.key !== (opts.key ?? null) || state.input.sha256 !== sha256) {
    const what = state.family !== opts.family.name ? `of ${state.family}` : state.key !== (opts.key ?? null) ? `with --key ${state.key ?? '(none)'}` : `of another file (${state.input.name})`;
    throw new UsageError(`${results} records an import ${what}; resume it with the same family, --from and --key, or remove ${results} and ${statePath(results)} to start afresh`);
  }
  if (!existsSync(results)) {
    throw new UsageError(`${results} is gone but ${statePath(results)} records an unfinished import: without the results svc cannot tell which rows were written; remove ${statePath(results)} to start afresh (rows written before would be written again)`);
  }
  const done = new Set<number>();
  const recheck = new Set<number>();
  const unknown = new Map<number, ReadLine>();
  for (const [line, r] of readResults(results)) {
    if (isDone(r)) done.add(line);
    else if (r.action === 'sending' || r.action === 'unknown') {
      if (opts.key !== undefined) recheck.add(line);
      else unknown.set(line, r);
    }
  }
  return { state, done, recheck, unknown };
}

/** The line recorded for a row that stays unknown: as it was, or made from its `sending` line. */
export function unknownLine(r: ReadLine): ResultLine {
  if (r.action !== 'sending') return r as ResultLine;
  return { line: r.line, action: 'unknown', id: null, status: null, etag: null, error: 'a create was being sent when svc stopped; whether the record was created is unknown (check it, or import with --key to let svc check)' };
}

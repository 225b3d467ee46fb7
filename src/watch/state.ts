/**
 * What a watch remembers between polls, and its cursor file. The state is
 * consistent at every line boundary: the cursor (after the first poll, the
 * service's newest `lastmodified` as it began; after a later one, the highest
 * it fetched less the time its scan took) moves only at
 * the end of a poll, and the hashes, the known IDs and a first poll's progress
 * move with each line written. A restart from any saved state re-fetches at
 * least what the lines after it were made of (a first poll goes on above the
 * last ID it wrote), and the hashes keep it from writing again what it wrote
 * before: no change missed, none repeated.
 */

import { IdSet } from './id-set.js';

/** The emitted version of one record inside the lag window: its lastmodified and a hash of its line's record. */
export interface Emitted {
  readonly lm: number;
  /** 48 bits of the SHA-256 of the record's JSON, as a number (exact in a double, compact in memory). */
  readonly hash: number;
}

export interface WatchState {
  /** Every change stamped at or after it is still to be fetched (service seconds); null until a record was seen. */
  cursor: number | null;
  /** --since: never ask for records changed before this (Unix seconds); null: from the beginning. */
  readonly floor: number | null;
  /** The first poll has completed (the known IDs are seeded). */
  started: boolean;
  /** Polls since the last ID comparison. */
  sinceReconcile: number;
  /**
   * The first poll while it runs (null once it is done): the highest ID whose
   * line is out, where it goes on after an interruption, and the cursor it
   * ends with (the service's newest lastmodified as it began: a change the
   * poll's scan had passed is stamped at or after it). Its lines need no
   * hashes to be resumed without repeats, so the window keeps only those the
   * next poll asks for again, and memory stays flat however many records it
   * writes. A family empty as it began has no newest stamp: `low`, the lowest
   * lastmodified written so far, is its cursor then (a change behind the scan
   * is to a record written, so stamped at or after it), and every hash is kept.
   */
  snapshot: { after: number; cursor: number | null; low: number | null } | null;
  /** What was emitted for the IDs inside the lag window. */
  readonly window: Map<number, Emitted>;
  /**
   * The window's lower edge: it holds a hash of every line written for a
   * stamp at or after it, and a poll never asks from below it. So a raised
   * --lag does not fetch again, and write twice, the records whose hashes an
   * earlier, narrower window dropped; the window widens as the cursor moves
   * on. Null: no poll has ended yet (or a cursor file from before the edge).
   */
  edge: number | null;
  /** The IDs a delete may be emitted for: the first pass's, plus upserts, minus deletes. */
  known: IdSet;
}

export function freshState(floor: number | null): WatchState {
  return { cursor: null, floor, started: false, sinceReconcile: 0, snapshot: null, window: new Map(), edge: null, known: new IdSet() };
}

/** The lowest lastmodified the next poll asks for: cursor − lag, never below --since or the window's edge; null: every record. */
export function lowerBound(state: WatchState, lagSeconds: number): number | null {
  if (state.cursor === null) return state.floor;
  return Math.max(state.cursor - lagSeconds, state.floor ?? -Infinity, state.edge ?? -Infinity);
}

/** Forgets the emitted versions that fell out of the window (they are not fetched again unless they change); the bound is its edge. */
export function pruneWindow(state: WatchState, lagSeconds: number): boolean {
  const bound = lowerBound(state, lagSeconds);
  if (bound === null) return false;
  state.edge = bound;
  let pruned = false;
  for (const [id, e] of state.window) {
    if (e.lm < bound) {
      state.window.delete(id);
      pruned = true;
    }
  }
  return pruned;
}

/**
 * What a watch remembers between polls, and its cursor file. The state is
 * consistent at every line boundary: the cursor (the highest `lastmodified`
 * seen) moves only at the end of a poll, and the hashes and the known IDs
 * move with each line written. A restart from any saved state re-fetches at
 * least what the lines after it were made of, and the hashes keep it from
 * writing again what it wrote before: no change missed, none repeated.
 */

/** The emitted version of one record inside the lag window: its lastmodified and a hash of its line's record. */
export interface Emitted {
  readonly lm: number;
  /** 48 bits of the SHA-256 of the record's JSON, as a number (exact in a double, compact in memory). */
  readonly hash: number;
}

export interface WatchState {
  /** The highest lastmodified seen (service seconds); null until a record was seen. */
  cursor: number | null;
  /** --since: never ask for records changed before this (Unix seconds); null: from the beginning. */
  readonly floor: number | null;
  /** The first poll has completed (the known IDs are seeded). */
  started: boolean;
  /** Polls since the last ID comparison. */
  sinceReconcile: number;
  /** What was emitted for the IDs inside the lag window. */
  readonly window: Map<number, Emitted>;
  /** The IDs a delete may be emitted for: the first pass's, plus upserts, minus deletes. */
  readonly known: Set<number>;
}

export function freshState(floor: number | null): WatchState {
  return { cursor: null, floor, started: false, sinceReconcile: 0, window: new Map(), known: new Set() };
}

/** The lowest lastmodified the next poll asks for: cursor − lag, never below --since; null: every record. */
export function lowerBound(state: WatchState, lagSeconds: number): number | null {
  const fromCursor = state.cursor === null ? null : state.cursor - lagSeconds;
  if (fromCursor === null) return state.floor;
  return state.floor === null ? fromCursor : Math.max(state.floor, fromCursor);
}

/** Forgets the emitted versions that fell out of the window (they are not fetched again unless they change). */
export function pruneWindow(state: WatchState, lagSeconds: number): boolean {
  const bound = lowerBound(state, lagSeconds);
  if (bound === null) return false;
  let pruned = false;
  for (const [id, e] of state.window) {
    if (e.lm < bound) {
      state.window.delete(id);
      pruned = true;
    }
  }
  return pruned;
}

/** A set of IDs as sorted inclusive ranges, flattened: [start, end, start, end, …]. */
export function toRanges(ids: Iterable<number>): number[] {
  const sorted = Float64Array.from(ids).sort();
  const out: number[] = [];
  for (const id of sorted) {
    const last = out.length - 1;
    if (last > 0 && out[last] === id - 1) out[last] = id;
    else if (last > 0 && out[last] === id) continue;
    else out.push(id, id);
  }
  return out;
}

/** The IDs of flattened ranges (checked by the caller: safe integers, each start ≤ end, rising). */
export function fromRanges(ranges: readonly number[], into: Set<number>): void {
  for (let i = 0; i < ranges.length; i += 2) {
    for (let id = ranges[i]!; id <= ranges[i + 1]!; id++) into.add(id);
  }
}

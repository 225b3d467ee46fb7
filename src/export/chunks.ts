/**
 * Cutting an ID range into chunks that parallel workers take one after the
 * other, so every worker stays busy and the writer, which writes chunks in
 * order, never waits long for the next one. A chunk is sized to hold about a
 * page of records: its width in IDs follows the density measured so far
 * (records per ID), starting from a sample taken before the run when known.
 */
import type { IdRange } from './plan.js';

/**
 * What is known of the matching records before the run: the highest ID, and
 * a sample of their density: `count` records lie above the start, up to
 * `upTo` (the IDs of a first page, asked for IDs only).
 */
export interface Density {
  readonly max: number;
  readonly count: number;
  readonly upTo: number;
}

export interface Chunker {
  /** The next chunk in ID order, or undefined when the range is handed out. */
  next(): IdRange | undefined;
  /** Tells how many records a finished chunk held, to size the next ones. */
  observe(chunk: IdRange, rows: number): void;
}

/** Share of a page a chunk aims at when records are sparse, so most chunks take one request. */
const FILL = 0.9;
/** Width never grows or shrinks more than this factor at a time. */
const STEP = 8;

/**
 * Chunks of `range` above `from`. Past the known highest ID the last chunk is
 * open-ended (up to the range's end, or no bound), so records inserted during
 * the run above it still land in exactly one chunk.
 */
export function createChunker(range: IdRange, from: number, pageSize: number, known?: Density): Chunker {
  const end = range.upTo;
  const knownMax = known ? (end === null ? known.max : Math.min(known.max, end)) : undefined;
  let cursor = from;
  let handedOut = false;
  let width = initialWidth(pageSize, from, known);
  return {
    next() {
      if (handedOut) return undefined;
      const stop = cursor + width;
      if (knownMax === undefined || stop >= knownMax || (end !== null && stop >= end)) {
        handedOut = true;
        return { after: cursor, upTo: end };
      }
      const chunk = { after: cursor, upTo: stop };
      cursor = stop;
      return chunk;
    },
    observe(chunk, rows) {
      if (chunk.upTo === null) return;
      const span = chunk.upTo - chunk.after;
      const target = rows >= span ? pageSize : Math.max(1, Math.floor((FILL * pageSize * span) / Math.max(rows, 1)));
      width = Math.min(width * STEP, Math.max(Math.ceil(width / STEP), target));
    },
  };
}

function initialWidth(pageSize: number, from: number, known: Density | undefined): number {
  if (!known || !known.count || known.upTo <= from) return pageSize;
  const density = known.count / (known.upTo - from);
  return density >= 1 ? pageSize : Math.max(1, Math.floor((FILL * pageSize) / density));
}

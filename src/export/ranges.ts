/**
 * Splitting an export into shards: the lowest and highest matching ID, cut
 * into N contiguous parts. The first part starts at 0 and the last one has no
 * upper bound, so records inserted outside the known range still land in one.
 */
import type { IdRange, Shard } from './plan.js';

/** Splits IDs min..max into n contiguous ranges covering every ID above 0. */
export function splitRange(min: number, max: number, n: number): IdRange[] {
  const span = max - min + 1;
  const cuts: number[] = [];
  for (let i = 1; i < n; i++) cuts.push(min - 1 + Math.floor((i * span) / n));
  const ranges: IdRange[] = [];
  let after = 0;
  for (const cut of cuts) {
    // With fewer IDs than parts, equal cuts would give empty ranges twice: keep them (harmless, and
    // every shard then sees the same split).
    ranges.push({ after, upTo: Math.max(after, cut) });
    after = Math.max(after, cut);
  }
  ranges.push({ after, upTo: null });
  return ranges;
}

/**
 * The range one run exports: the shard's part of min..max, or everything.
 * Without any matching record, the first shards get an empty range and the
 * last an open one, which finds nothing or whatever was inserted meanwhile.
 */
export function shardRange(bounds: { min: number; max: number } | undefined, shard?: Shard): IdRange {
  if (!shard) return { after: 0, upTo: null };
  if (!bounds) return shard.index < shard.count ? { after: 0, upTo: 0 } : { after: 0, upTo: null };
  const range = splitRange(bounds.min, bounds.max, shard.count)[shard.index - 1];
  if (!range) throw new Error('shard out of range');
  return range;
}

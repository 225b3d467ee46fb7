/**
 * Splitting an export into ID ranges: the lowest and highest matching ID, cut
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
 * The ranges one run fetches: the shard's range (or everything), cut into
 * `parts` pieces for parallel fetching. Without any matching record: one
 * open range, which finds nothing or whatever was inserted meanwhile.
 */
export function planRanges(bounds: { min: number; max: number } | undefined, parts: number, shard?: Shard): IdRange[] {
  if (!bounds) return shard && shard.index < shard.count ? [{ after: 0, upTo: 0 }] : [{ after: 0, upTo: null }];
  const whole = shard ? splitRange(bounds.min, bounds.max, shard.count)[shard.index - 1] : { after: 0, upTo: null };
  if (!whole) throw new Error('shard out of range');
  if (parts <= 1) return [whole];
  const lo = Math.max(whole.after + 1, bounds.min);
  const hi = whole.upTo ?? bounds.max;
  if (hi < lo) return [whole];
  const inner = splitRange(lo, hi, parts);
  return inner.map((r, i) => ({
    after: i === 0 ? whole.after : r.after,
    upTo: i === inner.length - 1 ? whole.upTo : r.upTo,
  }));
}

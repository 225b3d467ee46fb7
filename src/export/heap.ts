/**
 * How a long export keeps its memory flat. An export allocates a great deal
 * and keeps almost nothing (about 10 MB live after each full collection,
 * however long the run), but V8 sizes its heap for programs that keep what
 * they allocate:
 *   - the old generation may grow well past what is live before it is
 *     collected (the limit grows with the heap); a smaller growing factor
 *     makes full collections come sooner, and they are cheap when little is
 *     live (peaks of 140-170 MB became 120 MB, for about 4% more CPU);
 *   - the young generation doubles whenever many objects survive a scavenge,
 *     up to 16 MB a semi-space, so RSS kept rising for the first seconds of
 *     a run: a short export peaked lower than a long one. Kept at its first
 *     size, a 1M-row export's RSS levels off near 80 MB instead of 105-110 MB,
 *     for the same CPU (`node --max-semi-space-size` cannot be set once
 *     running, the growth factor can); 100k-row exports peak near 75 MB.
 */
import { setFlagsFromString } from 'node:v8';

/** Old-generation limit = live size × 1.3 after each full collection. */
const GROWING_PERCENT = 30;

/** Tunes the heap for a long streaming run; only exports call it. */
export function tuneHeapForStreaming(): void {
  setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
  setFlagsFromString('--semi-space-growth-factor=1');
}

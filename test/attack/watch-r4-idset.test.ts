/**
 * watch r4: IdSet (the known IDs as ranges)
 * at half a million ranges (every other ID of a million gone): 100k further
 * deletions found by a reconcile and deleted in batches, and IDs added
 * between the ranges. (The seeded model test is in test/watch/window.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { IdSet } from '../../src/watch/id-set.js';

const seed = Number(process.env.SVC_TEST_SEED ?? Date.now() % 2 ** 31);

describe('watch r4: IdSet', () => {
  it(`half a million ranges: a reconcile finds 100k scattered deletions, deletes them in batches, and takes IDs between the ranges (seed ${seed})`, () => {
    const rnd = createRandom(seed);
    const known = new IdSet();
    for (let id = 1; id <= 1_000_000; id += 2) known.add(id);
    expect(known.ranges().length).toBe(1_000_000);
    const matching = new IdSet();
    const gone = new Set<number>();
    while (gone.size < 100_000) gone.add(1 + 2 * rnd.int(0, 499_999));
    for (let id = 1; id <= 1_000_000; id += 2) if (!gone.has(id)) matching.add(id);
    let t = performance.now();
    const missing = known.minus(matching);
    const minusMs = performance.now() - t;
    expect(missing.length).toBe(100_000);
    t = performance.now();
    for (let i = 0; i < missing.length; i += 10_000) known.deleteSorted(missing.slice(i, i + 10_000));
    const deleteMs = performance.now() - t;
    expect(known.size).toBe(400_000);
    t = performance.now();
    const fresh = new Set(Array.from({ length: 1000 }, () => 2 * rnd.int(1, 499_999)));
    for (const id of fresh) known.add(id); // fresh IDs between the ranges
    const addMs = performance.now() - t;
    expect(known.size).toBe(400_000 + fresh.size);
    for (const id of fresh) expect(known.has(id)).toBe(true);
    // Times for a reader, not asserted (bench/ measures speed).
    console.log(`IdSet at 500k ranges: minus ${minusMs.toFixed(0)}ms, 10 batches of 10k deletes ${deleteMs.toFixed(0)}ms, 1000 adds inside ${addMs.toFixed(0)}ms`);
    expect(missing, `seed ${seed}`).toEqual([...gone].sort((a, b) => a - b));
    expect(known.has(missing[0]!)).toBe(false);
  });
});

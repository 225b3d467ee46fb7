/**
 * The cursor a scan of changed records leaves (a later sync, a watch's later
 * poll): the highest of its stamps, each less the time the scan took to its
 * page. Modelled here against the service's clock: a page received t seconds
 * after the scan began holds stamps of at most S + t, where S is the
 * service's time as the scan began; every change made behind the scan is
 * stamped at or after S, so the cursor must never pass S (rounded down to
 * the second, as stamps are), and it never moves back.
 */
import { describe, expect, it } from 'vitest';
import { ScanCursor } from '../../src/export/service-clock.js';
import { createRandom } from '../../src/util/random.js';

const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));

/** A scan on a monotonic clock the test moves: pages at the given seconds after it began. */
function scanOf(pages: readonly (readonly [number, readonly number[]])[], startMs = 5_000): ScanCursor {
  let now = startMs;
  const scan = new ScanCursor(() => now);
  for (const [at, stamps] of pages) {
    now = startMs + at * 1000;
    const see = scan.page();
    for (const s of stamps) see(s);
  }
  return scan;
}

describe(`the cursor after a scan (seed ${seed})`, () => {
  it('never passes the service time the scan began at, never moves back, and is a stamp seen less the time to its page (seeded)', () => {
    const random = createRandom(seed);
    for (let trial = 0; trial < 5_000; trial++) {
      const S = 1_700_000_000 + random.int(0, 10_000) + random.next(); // the service's time as the scan began (real)
      const pages: [number, number[]][] = [];
      let t = 0;
      for (let k = random.int(0, 8); k > 0; k--) {
        t += random.chance(0.3) ? random.next() * 600 : random.next() * 2; // some pages take minutes
        // Records read by the service by then: stamped at most at S + t (truncated to the second), many far older.
        const stamps = Array.from({ length: random.int(0, 5) }, () => Math.floor(S + t) - (random.chance(0.5) ? 0 : random.int(0, 5_000)));
        pages.push([t, stamps]);
      }
      const before = random.chance(0.2) ? null : Math.floor(S) - random.int(-50, 3_000);
      const what = `seed ${seed}, trial ${trial}: S ${S}, before ${before}, pages ${JSON.stringify(pages)}`;
      const cursor = scanOf(pages).cursor(before);
      const seen = pages.flatMap(([at, stamps]) => stamps.map((s) => s - Math.ceil(at)));
      if (seen.length === 0) {
        expect(cursor, what).toBe(before);
        continue;
      }
      // Never past S, unless the cursor before already was (it stays: a cursor never moves back).
      if (before === null || before <= Math.floor(S)) expect(cursor!, what).toBeLessThanOrEqual(Math.floor(S));
      if (before !== null) expect(cursor!, what).toBeGreaterThanOrEqual(before);
      expect(cursor, what).toBe(before === null ? Math.max(...seen) : Math.max(before, ...seen));
    }
  });

  it('sets an early page back by little: a long scan does not push the cursor far below where it began', () => {
    // Old records in the first page (stamped as the scan began), then ten minutes of pages with nothing newer.
    const scan = scanOf([
      [0.4, [1_800_000_000, 1_799_999_000]],
      [300, [1_799_990_000]],
      [600, []],
    ]);
    expect(scan.cursor(1_799_000_000)).toBe(1_800_000_000 - 1);
    // Nothing seen: the cursor stays.
    expect(scanOf([[10, []]]).cursor(1_799_000_000)).toBe(1_799_000_000);
    expect(scanOf([]).cursor(null)).toBe(null);
  });

  it('keeps the cursor where it was when the clock went backwards (a measure too short would pass the scan\'s start)', () => {
    let now = 100_000;
    const scan = new ScanCursor(() => now);
    now += 30_000;
    scan.page()(1_800_000_030);
    now -= 20_000; // stepped back: this page's time would read 10 s, its stamps up to 30 s after the start
    scan.page()(1_800_000_029);
    expect(scan.cursor(1_799_000_000)).toBe(1_799_000_000);
    let t = Number.NaN;
    const nan = new ScanCursor(() => t);
    t = 5;
    nan.page()(1_800_000_000);
    expect(nan.cursor(null)).toBe(null);
  });
});

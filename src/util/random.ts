/**
 * A small seeded pseudo-random generator for the seeds (sfc32 seeded through
 * splitmix32), so a tenant comes out identical for the same inputs. Never
 * Math.random: tests compare two seeds row by row.
 */

/** Draws from one deterministic stream. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T;
  /** A money-like amount in [lo, hi] with two decimals. */
  money(lo: number, hi: number): number;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** A generator whose whole sequence is fixed by `seed` (any 32-bit integer). */
export function createRandom(seed: number): Random {
  const init = splitmix32(seed);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next(); // let the state mix before the first draw
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick<T>(list: readonly T[]): T {
      if (list.length === 0) throw new Error('pick from an empty list');
      return list[Math.floor(next() * list.length)] as T;
    },
    money: (lo, hi) => Math.round((lo + next() * (hi - lo)) * 100) / 100,
  };
}

/** An index into cumulative weights: weights [3, 1] yield 0 three times as often as 1. */
export function weighted(random: Random, weights: readonly number[]): number {
  const total = weights.reduce((s, w) => s + w, 0);
  let x = random.next() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i] ?? 0;
    if (x < 0) return i;
  }
  return weights.length - 1;
}

import { describe, expect, it } from 'vitest';
import { inOrder, type Producer } from '../../src/export/ordered.js';

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('inOrder', () => {
  it('hands items over part after part while parts fetch in parallel, within the limits', async () => {
    let fetching = 0;
    let peakFetching = 0;
    let started = 0;
    let written = 0;
    let peakAhead = 0;
    const parts = 20;
    const next = (): Producer<string> | undefined => {
      if (started === parts) return undefined;
      const part = started++;
      peakAhead = Math.max(peakAhead, started - written);
      return async function* produce() {
        for (let i = 0; i < 3; i++) {
          fetching++;
          peakFetching = Math.max(peakFetching, fetching);
          // Later parts answer sooner, so order comes from the scheduler, not the timing.
          await tick(1 + ((parts - part) % 5));
          fetching--;
          yield `${part}.${i}`;
        }
      };
    };
    const seen: string[] = [];
    for await (const item of inOrder(next, { running: 4, window: 8, depth: 2 })) {
      seen.push(item);
      if (item.endsWith('.2')) written++;
    }
    expect(seen).toEqual(Array.from({ length: parts * 3 }, (_, k) => `${Math.floor(k / 3)}.${k % 3}`));
    expect(peakFetching).toBe(4);
    expect(peakAhead).toBeLessThanOrEqual(8);
  });

  it('surfaces a part\'s error after every earlier item, and stops the others', async () => {
    let stopped = 0;
    let count = 0;
    const next = (): Producer<number> | undefined => {
      const part = count++;
      if (part > 5) return undefined;
      return async function* produce(signal) {
        signal.addEventListener('abort', () => stopped++);
        await tick(part === 2 ? 1 : 5);
        if (part === 2) throw new Error('part 2 failed');
        yield part;
      };
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of inOrder(next, { running: 3, window: 6, depth: 1 })) seen.push(item);
      })(),
    ).rejects.toThrow('part 2 failed');
    expect(seen).toEqual([0, 1]);
    expect(stopped).toBeGreaterThan(0);
  });
});

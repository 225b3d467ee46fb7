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

  it('yields nothing after an abort, even what later parts hold already: a part cut short is an error, not an end', async () => {
    const outer = new AbortController();
    let releasePart1 = (): void => undefined;
    let part2Buffered = (): void => undefined;
    const part2Ready = new Promise<void>((r) => (part2Buffered = r));
    let count = 0;
    const next = (): Producer<string> | undefined => {
      const part = count++;
      if (part > 3) return undefined;
      return async function* produce() {
        if (part === 1) await new Promise<void>((r) => (releasePart1 = r));
        yield `${part}.0`;
        if (part === 2) part2Buffered();
        yield `${part}.1`;
      };
    };
    const seen: string[] = [];
    const consumed = (async () => {
      for await (const item of inOrder(next, { running: 4, window: 8, depth: 2, signal: outer.signal })) {
        seen.push(item);
        if (item === '0.1') {
          await part2Ready;
          outer.abort(new Error('interrupted by SIGTERM'));
          releasePart1();
        }
      }
    })();
    await expect(consumed).rejects.toThrow('interrupted by SIGTERM');
    expect(seen).toEqual(['0.0', '0.1']);
  });

  it('throws at once when the signal was aborted before the first item', async () => {
    const outer = new AbortController();
    outer.abort(new Error('stopped early'));
    const next = (): Producer<number> | undefined => async function* produce() {
      yield 1;
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of inOrder(next, { running: 1, window: 1, depth: 1, signal: outer.signal })) seen.push(item);
      })(),
    ).rejects.toThrow('stopped early');
    expect(seen).toEqual([]);
  });
});

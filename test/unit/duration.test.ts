/** Durations as svc takes them (--timeout, --interval, --lag) and says them back in messages. */
import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, parseDuration, shortDuration } from '../../src/util/duration.js';

describe('durations', () => {
  it('are said in their two largest units, rounded down, in a form svc takes back', () => {
    expect(shortDuration(250)).toBe('250ms');
    expect(shortDuration(10_000)).toBe('10s');
    expect(shortDuration(90_000)).toBe('1m30s');
    expect(shortDuration(3 * 86_400_000)).toBe('3d');
    expect(shortDuration(MAX_TIMER_MS)).toBe('24d20h');
    // What a message names as the limit is itself within it.
    expect(parseDuration(shortDuration(MAX_TIMER_MS), '--timeout', MAX_TIMER_MS)).toBeLessThanOrEqual(MAX_TIMER_MS);
  });

  it('beyond a limit, name the limit exactly enough that a value just above the old rounding is not refused by a message that allows it', () => {
    expect(() => parseDuration('25d', '--timeout', MAX_TIMER_MS)).toThrow("--timeout '25d' is too long; use at most 24d20h");
    expect(parseDuration('596h', '--timeout', MAX_TIMER_MS)).toBe(596 * 3_600_000);
  });
});

describe('parseDuration', () => {
  it('takes a bare number as seconds, one unit, or several parts', () => {
    expect(parseDuration('30', 'x')).toBe(30_000);
    expect(parseDuration(' 1.5s ', 'x')).toBe(1500);
    expect(parseDuration('1m30s', 'x')).toBe(90_000);
    expect(parseDuration('24d20h', 'x')).toBe(596 * 3_600_000);
    expect(parseDuration('1h500ms', 'x')).toBe(3_600_500);
  });

  it('refuses what is not a duration, naming the forms it takes', () => {
    for (const bad of ['', 's', '1x', '1m 30s', '1m30', '-1s', '1e3s', '30s!', '1m30s'.repeat(2) + '1s'.repeat(4)]) {
      expect(() => parseDuration(bad, '--timeout'), bad).toThrow(/^invalid --timeout '.*'; use a number with ms, s, m, h, d or w, e\.g\. 30s, 1m30s or 30d$/);
    }
    expect(() => parseDuration('0s', '--timeout')).toThrow('--timeout must be more than zero');
  });
});

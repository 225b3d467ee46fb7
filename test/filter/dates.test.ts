/**
 * Wall-clock times next to daylight-saving changes, in several zones and at
 * both changes of the year: a time that occurs once is that moment, a time
 * that occurs twice (clocks set back) is the earlier moment, and a time that
 * does not occur (clocks set forward over it) is the first moment after the
 * gap. Checked against hand-written moments and against a brute-force oracle
 * that scans instants and reads their wall time with Intl.
 */
import { describe, expect, it } from 'vitest';
import { parseDate } from '../../src/filter/dates.js';

const NOW = Date.UTC(2026, 10, 18, 14, 30, 0);

/** The Unix seconds parseDate gives a date or date-time in a zone. */
function seconds(text: string, zone: string, now = NOW): number {
  const r = parseDate(text, now, zone);
  if (!r.ok) throw new Error(`${text} in ${zone}: ${r.message}`);
  return r.seconds;
}

const utc = (y: number, mo: number, d: number, h = 0, mi = 0): number => Date.UTC(y, mo - 1, d, h, mi) / 1000;

describe('a wall-clock time next to a daylight-saving change (hand-checked moments)', () => {
  it.each([
    // Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST (01:00Z); 2026-10-25 03:00 CEST → 02:00 CET (01:00Z)
    ['Europe/Berlin', '2026-03-29T01:00', utc(2026, 3, 29, 0, 0), 'an hour before the gap'],
    ['Europe/Berlin', '2026-03-29T01:30', utc(2026, 3, 29, 0, 30), 'half an hour before the gap'],
    ['Europe/Berlin', '2026-03-29T01:59', utc(2026, 3, 29, 0, 59), 'the last minute before the gap'],
    ['Europe/Berlin', '2026-03-29T02:00', utc(2026, 3, 29, 1, 0), 'in the gap: the first moment after it'],
    ['Europe/Berlin', '2026-03-29T02:30', utc(2026, 3, 29, 1, 0), 'in the gap: the first moment after it'],
    ['Europe/Berlin', '2026-03-29T03:00', utc(2026, 3, 29, 1, 0), 'the first wall time after the gap'],
    ['Europe/Berlin', '2026-03-29T03:30', utc(2026, 3, 29, 1, 30), 'after the gap'],
    ['Europe/Berlin', '2026-10-25T01:59', utc(2026, 10, 24, 23, 59), 'before the repeated hour'],
    ['Europe/Berlin', '2026-10-25T02:00', utc(2026, 10, 25, 0, 0), 'repeated: the earlier (CEST)'],
    ['Europe/Berlin', '2026-10-25T02:30', utc(2026, 10, 25, 0, 30), 'repeated: the earlier (CEST)'],
    ['Europe/Berlin', '2026-10-25T03:00', utc(2026, 10, 25, 2, 0), 'after the repeated hour'],
    // America/New_York: 2026-03-08 02:00 EST → 03:00 EDT (07:00Z); 2026-11-01 02:00 EDT → 01:00 EST (06:00Z)
    ['America/New_York', '2026-03-08T01:59', utc(2026, 3, 8, 6, 59), 'before the gap'],
    ['America/New_York', '2026-03-08T02:15', utc(2026, 3, 8, 7, 0), 'in the gap: the first moment after it'],
    ['America/New_York', '2026-03-08T03:00', utc(2026, 3, 8, 7, 0), 'after the gap'],
    ['America/New_York', '2026-11-01T00:30', utc(2026, 11, 1, 4, 30), 'before the repeated hour'],
    ['America/New_York', '2026-11-01T01:00', utc(2026, 11, 1, 5, 0), 'repeated: the earlier (EDT)'],
    ['America/New_York', '2026-11-01T01:30', utc(2026, 11, 1, 5, 30), 'repeated: the earlier (EDT)'],
    ['America/New_York', '2026-11-01T02:00', utc(2026, 11, 1, 7, 0), 'after the repeated hour (EST)'],
    ['America/New_York', '2026-11-01T02:30', utc(2026, 11, 1, 7, 30), 'after the repeated hour (EST)'],
    ['America/New_York', '2026-11-01T03:59', utc(2026, 11, 1, 8, 59), 'after the repeated hour (EST)'],
    // America/Santiago: 2026-09-06 00:00 -04 → 01:00 -03 (04:00Z), midnight skipped; 2026-04-05 00:00 -03 → 23:00 -04 (03:00Z)
    ['America/Santiago', '2026-09-06', utc(2026, 9, 6, 4, 0), 'a day whose midnight is skipped starts at the jump'],
    ['America/Santiago', '2026-09-06T00:30', utc(2026, 9, 6, 4, 0), 'in the gap'],
    ['America/Santiago', '2026-09-06T01:00', utc(2026, 9, 6, 4, 0), 'after the gap'],
    ['America/Santiago', '2026-04-04T23:30', utc(2026, 4, 5, 2, 30), 'repeated: the earlier (-03)'],
    ['America/Santiago', '2026-04-05', utc(2026, 4, 5, 4, 0), 'the midnight after the repeated hour'],
    // Australia/Lord_Howe moves by half an hour: 2026-10-04 02:00 → 02:30 (15:30Z the day before); 2026-04-05 02:00 → 01:30 (15:00Z the day before)
    ['Australia/Lord_Howe', '2026-10-04T02:15', utc(2026, 10, 3, 15, 30), 'in a half-hour gap'],
    ['Australia/Lord_Howe', '2026-04-05T01:45', utc(2026, 4, 4, 14, 45), 'repeated half hour: the earlier (+11)'],
    // Pacific/Apia skipped 30 December 2011 altogether (-10 → +14 at 10:00Z)
    ['Pacific/Apia', '2011-12-30T12:00', utc(2011, 12, 30, 10, 0), 'a skipped day: the first moment after it'],
    ['Pacific/Apia', '2011-12-31', utc(2011, 12, 30, 10, 0), 'the day after the skipped one'],
    // Zones without a change that day
    ['Asia/Kolkata', '2026-03-29T01:30', utc(2026, 3, 28, 20, 0), 'a fixed half-hour offset'],
    ['UTC', '2026-03-29T01:30', utc(2026, 3, 29, 1, 30), 'UTC'],
  ])('%s %s is %i (%s)', (zone, text, expected) => {
    expect(seconds(text, zone)).toBe(expected);
  });

  it.each([
    // The day of a change starts at its midnight, or at the jump when midnight is skipped.
    ['America/Santiago', '2026-09-06T15:00Z', 'today', utc(2026, 9, 6, 4, 0)],
    ['America/Santiago', '2026-09-07T15:00Z', 'yesterday', utc(2026, 9, 6, 4, 0)],
    ['America/Santiago', '2026-09-05T15:00Z', 'tomorrow', utc(2026, 9, 6, 4, 0)],
    ['America/Santiago', '2026-04-05T15:00Z', 'today', utc(2026, 4, 5, 4, 0)],
    ['Europe/Berlin', '2026-03-29T12:00Z', 'today', utc(2026, 3, 28, 23, 0)],
    ['Europe/Berlin', '2026-03-30T12:00Z', 'yesterday', utc(2026, 3, 28, 23, 0)],
    ['Europe/Berlin', '2026-03-30T12:00Z', 'today', utc(2026, 3, 29, 22, 0)],
    ['America/New_York', '2026-11-01T12:00Z', 'today', utc(2026, 11, 1, 4, 0)],
    ['America/New_York', '2026-11-02T12:00Z', 'startofweek', utc(2026, 11, 2, 5, 0)],
  ])('%s at %s: %s is %i', (zone, now, word, expected) => {
    expect(seconds(word, zone, Date.parse(now))).toBe(expected);
  });
});

const formatters = new Map<string, Intl.DateTimeFormat>();

/** An independent reading of a moment's wall time in a zone: "YYYY-MM-DDTHH:MM". */
function wallText(ms: number, zone: string): string {
  const f = formatters.get(zone) ?? new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
  formatters.set(zone, f);
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

const STEP = 15 * 60_000;

/**
 * The expected moment of a wall time by brute force over instants 15 minutes
 * apart (every change and offset here is a multiple of 15 minutes): the first
 * instant showing that wall time, else (a gap) the first instant showing a
 * later one.
 */
function oracle(wall: string, zone: string): { seconds: number; kind: 'once' | 'twice' | 'gap' } {
  const [date = '', time = ''] = wall.split('T');
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi);
  const instants: number[] = [];
  for (let t = asUtc - 30 * 3_600_000; t <= asUtc + 30 * 3_600_000; t += STEP) instants.push(t);
  const hits = instants.filter((t) => wallText(t, zone) === wall);
  const [hit] = hits;
  if (hit !== undefined) return { seconds: hit / 1000, kind: hits.length > 1 ? 'twice' : 'once' };
  const after = instants.find((t, i) => i > 0 && wallText(t, zone) > wall && wallText(instants[i - 1] ?? t, zone) < wall);
  if (after === undefined) throw new Error(`no moment for ${wall} in ${zone}`);
  return { seconds: after / 1000, kind: 'gap' };
}

describe('a wall-clock time next to a daylight-saving change (brute-force oracle)', () => {
  const days: readonly (readonly [zone: string, day: string])[] = [
    ['Europe/Berlin', '2026-03-29'],
    ['Europe/Berlin', '2026-10-25'],
    ['Europe/London', '2026-03-29'],
    ['Europe/London', '2026-10-25'],
    ['America/New_York', '2026-03-08'],
    ['America/New_York', '2026-11-01'],
    ['America/Santiago', '2026-09-06'],
    ['America/Santiago', '2026-04-05'],
    ['Australia/Sydney', '2026-10-04'],
    ['Australia/Sydney', '2026-04-05'],
    ['Australia/Lord_Howe', '2026-10-04'],
    ['Australia/Lord_Howe', '2026-04-05'],
    ['Asia/Tehran', '2021-03-22'],
    ['Asia/Tehran', '2021-09-22'],
  ];

  it.each(days)('%s on %s and the evening before: every quarter hour', (zone, day) => {
    const kinds = new Set<string>();
    const [y, mo, d] = day.split('-').map(Number) as [number, number, number];
    for (let t = Date.UTC(y, mo - 1, d - 1, 20); t <= Date.UTC(y, mo - 1, d, 6); t += STEP) {
      const wall = new Date(t).toISOString().slice(0, 16);
      const expected = oracle(wall, zone);
      kinds.add(expected.kind);
      expect(seconds(wall, zone), `${wall} in ${zone} (${expected.kind})`).toBe(expected.seconds);
    }
    // Each day holds a change, so the scan must have met a gap or a repeated time, or it checked nothing of interest.
    expect([...kinds].some((k) => k !== 'once'), [...kinds].join()).toBe(true);
  });
});

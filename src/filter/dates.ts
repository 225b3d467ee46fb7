/**
 * Dates for timestamp fields, to Unix seconds. Absolute forms are ISO dates
 * and date-times; relative forms count from `now`; calendar words (today,
 * startofweek, …) are midnights in a time zone: the one given, else the
 * local one. Time-zone arithmetic uses Intl only.
 */
import { shown } from '../util/shown.js';

/** A date or the reason it is not one. */
export type DateResult = { readonly ok: true; readonly seconds: number } | { readonly ok: false; readonly message: string };

/** Seconds per unit of a relative date (`-7d`). */
export const RELATIVE_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** Calendar words and what they mean, for the parser and the help page. */
export const DATE_WORDS: Readonly<Record<string, string>> = {
  now: 'the current time',
  today: 'midnight at the start of today',
  yesterday: 'midnight at the start of yesterday',
  tomorrow: 'midnight at the start of tomorrow',
  startofweek: 'midnight at the start of this week (Monday)',
  startofmonth: 'midnight at the start of the first day of this month',
  startofyear: 'midnight at the start of 1 January this year',
};

const RELATIVE = /^([+-])(\d{1,9})([smhdw])$/i;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Wall-clock parts of a moment in a zone. */
interface Wall {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly weekday: number;
}

/** Parses a date value in `zone` relative to `now` (ms). */
export function parseDate(text: string, now: number, zone: string | undefined): DateResult {
  const formatter = createFormatter(zone);
  if (!formatter) return { ok: false, message: `unknown time zone '${shown(zone ?? '', 60)}'; use an IANA name such as Europe/Berlin` };
  const word = text.toLowerCase();
  if (word === 'now') return { ok: true, seconds: Math.floor(now / 1000) };
  // Own keys only: `__proto__` or `constructor` is no date word (`in` would find them on Object.prototype).
  if (Object.hasOwn(DATE_WORDS, word)) return { ok: true, seconds: calendarWord(word, now, formatter) };
  const rel = RELATIVE.exec(text);
  if (rel) {
    const amount = Number(rel[2]) * (RELATIVE_UNITS[(rel[3] ?? 's').toLowerCase()] ?? 1);
    return { ok: true, seconds: Math.floor(now / 1000) + (rel[1] === '-' ? -amount : amount) };
  }
  const iso = ISO.exec(text);
  if (iso) return isoDate(iso, formatter);
  return { ok: false, message: `'${shown(text, 60)}' is not a date; use 2026-11-01, 2026-11-01T08:30, -7d, today or a number of Unix seconds` };
}

function isoDate(m: RegExpExecArray, formatter: Intl.DateTimeFormat): DateResult {
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const valid = probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  if (!valid) return { ok: false, message: `'${m[0]}' is not a valid date` };
  const zone = m[7];
  if (zone === undefined) return { ok: true, seconds: fromWall(year, month, day, hour, minute, second, formatter) };
  const offset = zone.toUpperCase() === 'Z' ? 0 : offsetMinutes(zone);
  if (offset === undefined) return { ok: false, message: `'${zone}' is not a valid offset; use Z or +01:00` };
  return { ok: true, seconds: probe.getTime() / 1000 - offset * 60 };
}

function offsetMinutes(zone: string): number | undefined {
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

function calendarWord(word: string, now: number, formatter: Intl.DateTimeFormat): number {
  const w = wallOf(now, formatter);
  const shift: Record<string, [number, number]> = {
    today: [w.month, w.day],
    yesterday: [w.month, w.day - 1],
    tomorrow: [w.month, w.day + 1],
    startofweek: [w.month, w.day - ((w.weekday + 6) % 7)],
    startofmonth: [w.month, 1],
    startofyear: [1, 1],
  };
  const [month, day] = shift[word] ?? [w.month, w.day];
  const d = new Date(Date.UTC(w.year, month - 1, day));
  return fromWall(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), 0, 0, 0, formatter);
}

/**
 * The Unix seconds of a wall-clock time in the formatter's zone. A time that
 * occurs twice (clocks set back) is the earlier of the two; a time that does
 * not occur (clocks set forward over it) is the first moment after the gap,
 * the instant the clocks jump (so a day whose midnight is skipped starts when
 * it does).
 */
function fromWall(year: number, month: number, day: number, hour: number, minute: number, second: number, formatter: Intl.DateTimeFormat): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const offsets = new Set<number>();
  for (const probe of [wall - DAY_MS, wall, wall + DAY_MS]) offsets.add(offsetAt(probe, formatter));
  for (const o of [...offsets]) offsets.add(offsetAt(wall - o, formatter));
  const candidates = [...offsets].map((o) => wall - o).sort((a, b) => a - b);
  const matching = candidates.filter((t) => wallAt(t, formatter) === wall);
  const [first] = matching;
  if (first !== undefined) return Math.floor(first / 1000);
  return Math.floor(gapEnd(wall, candidates, formatter) / 1000);
}

const DAY_MS = 86_400_000;

/** A moment's wall-clock time in the zone, as ms of a UTC date with the same parts. */
function wallAt(ms: number, formatter: Intl.DateTimeFormat): number {
  return ms + offsetAt(ms, formatter);
}

/**
 * The first moment whose wall-clock time lies after `wall`, a wall time in a
 * gap: between the candidates that bracket it (one before the jump, whose wall
 * time is earlier, one after it, whose wall time is later), by halving to the
 * second.
 */
function gapEnd(wall: number, candidates: readonly number[], formatter: Intl.DateTimeFormat): number {
  const before = candidates.find((t) => wallAt(t, formatter) < wall);
  const after = [...candidates].reverse().find((t) => wallAt(t, formatter) > wall);
  if (before === undefined || after === undefined || before >= after) return candidates[0] ?? wall;
  let lo = Math.floor(before / 1000) * 1000;
  let hi = Math.floor(after / 1000) * 1000;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (wallAt(mid, formatter) > wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The zone's offset from UTC at a moment, in ms. */
function offsetAt(ms: number, formatter: Intl.DateTimeFormat): number {
  const w = wallOf(ms, formatter);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function wallOf(ms: number, formatter: Intl.DateTimeFormat): Wall {
  const parts: Record<string, string> = {};
  for (const p of formatter.formatToParts(new Date(ms))) parts[p.type] = p.value;
  const n = (k: string): number => Number(parts[k] ?? 0);
  return { year: n('year'), month: n('month'), day: n('day'), hour: n('hour') % 24, minute: n('minute'), second: n('second'), weekday: WEEKDAYS.indexOf(parts.weekday ?? 'Sun') };
}

function createFormatter(zone: string | undefined): Intl.DateTimeFormat | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', {
      ...(zone === undefined ? {} : { timeZone: zone }),
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  } catch {
    return undefined;
  }
}

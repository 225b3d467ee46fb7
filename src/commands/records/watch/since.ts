/** `--since TIME` of `svc <family> watch`: a date as filters take them, or a duration ago (loaded only when given). */
import { UsageError } from '../../../errors.js';
import { shown } from '../../../util/shown.js';
import { parseDate } from '../../../filter/dates.js';
import { parseDuration } from '../../../util/duration.js';

/**
 * --since: a date or date-time as filters take them (2026-11-01, 2026-11-01T08:30Z, today, now, -2h) or a
 * duration ago (90m, 2d); answers Unix seconds.
 */
export function parseSince(text: string, nowMs: number, tz: string | undefined): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?(ms|s|m|h|d|w)$/.test(trimmed)) return Math.floor((nowMs - parseDuration(trimmed, '--since')) / 1000);
  const date = parseDate(trimmed, nowMs, tz);
  // A time still to come would keep every change made until then out of the feed, and the cursor file it starts refuses
  // another --since: refused (a minute's grace for clocks).
  if (date.ok && date.seconds > Math.floor(nowMs / 1000) + 60) {
    throw new UsageError(`--since ${shown(text, 80)} is in the future (${new Date(date.seconds * 1000).toISOString()}); give a time that has passed, or now`);
  }
  if (date.ok) return date.seconds;
  throw new UsageError(`--since: ${date.message.replace('today or a number of Unix seconds', 'today, now or a duration ago such as 2h')}`);
}

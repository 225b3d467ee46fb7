import { UsageError } from '../errors.js';
import { shown } from './shown.js';

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The longest wait a timer can hold (setTimeout's 32-bit limit, about 24.8 days): longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The longest duration svc takes at all (ten years), so every value stays an exact, finite number. */
const MAX_DURATION_MS = 10 * 365 * UNITS.d!;

/** A duration for messages, in the largest unit that keeps it whole or nearly: "24d", "10h". */
function shortDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNITS[unit]!;
    if (ms >= size) return `${Math.floor(ms / size)}${unit}`;
  }
  return `${Math.floor(ms)}ms`;
}

/**
 * Parses "500ms", "30s", "2m", "12h", "30d", "2w" (a bare number is seconds)
 * into milliseconds, up to `maxMs` (a usage error beyond it, naming the limit;
 * e.g. MAX_TIMER_MS for a timeout, since a longer timer fires at once).
 */
export function parseDuration(text: string, what: string, maxMs = MAX_DURATION_MS): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid ${what} '${shown(text, 40)}'; use a number with ms, s, m, h, d or w, e.g. 30s or 30d`);
  const ms = Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 1000);
  if (!(ms > 0)) throw new UsageError(`${what} must be more than zero`);
  if (!(ms <= maxMs)) throw new UsageError(`${what} '${shown(text, 40)}' is too long; use at most ${shortDuration(maxMs)}`);
  return ms;
}

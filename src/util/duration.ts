import { UsageError } from '../errors.js';
import { shown } from './shown.js';

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The longest wait a timer can hold (setTimeout's 32-bit limit, about 24.8 days): longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The longest duration svc takes at all (ten years), so every value stays an exact, finite number. */
const MAX_DURATION_MS = 10 * 365 * UNITS.d!;

/**
 * A duration for messages, in the two largest units it has, rounded down, as --timeout and --interval
 * take it back: "24d20h" (not "24d", which would send 596h, within the limit, to a refusal), "10s", "1m30s",
 * "250ms".
 */
export function shortDuration(ms: number): string {
  const units = ['d', 'h', 'm', 's'] as const;
  const first = units.findIndex((u) => ms >= UNITS[u]!);
  if (first < 0) return `${Math.floor(ms)}ms`;
  const big = units[first]!;
  const whole = Math.floor(ms / UNITS[big]!);
  const next = units[first + 1];
  const rest = next ? Math.floor((ms - whole * UNITS[big]!) / UNITS[next]!) : 0;
  return `${whole}${big}${next && rest > 0 ? `${rest}${next}` : ''}`;
}

/**
 * Parses "500ms", "30s", "2m", "12h", "30d", "2w", "1m30s" (a bare number is seconds)
 * into milliseconds, up to `maxMs` (a usage error beyond it, naming the limit;
 * e.g. MAX_TIMER_MS for a timeout, since a longer timer fires at once).
 */
export function parseDuration(text: string, what: string, maxMs = MAX_DURATION_MS): number {
  const t = text.trim();
  // A bare number is seconds; otherwise one or more number-unit parts, as people write them: 1m30s, 24d20h.
  const parts = /^\d+(?:\.\d+)?$/.test(t) ? [[t, t, 's']] : [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  const spelt = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || parts.length > 5 || spelt !== t) {
    throw new UsageError(`invalid ${what} '${shown(text, 40)}'; use a number with ms, s, m, h, d or w, e.g. 30s, 1m30s or 30d`);
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2]!] ?? 1000), 0);
  if (!(ms > 0)) throw new UsageError(`${what} must be more than zero`);
  if (!(ms <= maxMs)) throw new UsageError(`${what} '${shown(text, 40)}' is too long; use at most ${shortDuration(maxMs)}`);
  return ms;
}

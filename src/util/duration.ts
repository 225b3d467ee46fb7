import { UsageError } from '../errors.js';

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses "500ms", "30s", "2m", "12h", "30d", "2w" (a bare number is seconds) into milliseconds. */
export function parseDuration(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid ${what} '${text}'; use a number with ms, s, m, h, d or w, e.g. 30s or 30d`);
  const ms = Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 1000);
  if (!(ms > 0)) throw new UsageError(`${what} must be more than zero`);
  return ms;
}

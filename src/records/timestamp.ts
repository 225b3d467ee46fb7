/**
 * ISO dates and date-times to Unix seconds, read in a time zone (IANA name)
 * unless the text carries its own offset (`Z`, `+02:00`). Pure: the zone is
 * always passed in.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** Whether `zone` is a time zone name the runtime knows (e.g. Europe/Berlin, UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The local time zone of the runtime, or TZ from the given environment. */
export function localTimeZone(env: Readonly<Record<string, string | undefined>>): string {
  const tz = env.TZ;
  if (tz && isTimeZone(tz)) return tz;
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** How far `zone`'s wall clock is ahead of UTC at the instant `ms`, in ms. */
function zoneOffsetMs(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(ms));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(ms / 1000) * 1000;
}

function offsetMs(text: string): number {
  if (text.toUpperCase() === 'Z') return 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

/**
 * Unix seconds of an ISO date (`2026-05-01`, midnight) or date-time
 * (`2026-05-01T09:30`, `2026-05-01 09:30:15`, optionally `Z` or `±HH:MM`),
 * read in `zone` when no offset is given; undefined when the text is not one.
 */
export function parseIsoToUnix(text: string, zone: string): number | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(wall);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  if (m[7] !== undefined) return Math.floor((wall - offsetMs(m[7])) / 1000);
  // The offset at the guessed instant, then once more at the corrected one (DST edges).
  let utc = wall - zoneOffsetMs(wall, zone);
  utc = wall - zoneOffsetMs(utc, zone);
  return Math.floor(utc / 1000);
}

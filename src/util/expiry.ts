/** Unix times for people: a token's expiry (`svc auth status`, `svc profile show`), a copy's last run (`sync --status`). */

/** A Unix time (seconds) as an ISO date-time in UTC, without milliseconds. */
export function isoSeconds(seconds: number): string {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? String(seconds) : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A Unix time as an ISO date, with "expired" when it has passed. */
export function expiryLabel(seconds: number, nowMs: number): string {
  const iso = isoSeconds(seconds);
  return seconds * 1000 <= nowMs ? `${iso} (expired)` : iso;
}

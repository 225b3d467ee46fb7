/** A token's expiry for people (`svc auth status`, `svc profile show`). */

/** A Unix time as an ISO date, with "expired" when it has passed. */
export function expiryLabel(seconds: number, nowMs: number): string {
  const iso = new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
  return seconds * 1000 <= nowMs ? `${iso} (expired)` : iso;
}

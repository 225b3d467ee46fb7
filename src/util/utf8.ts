/** Where UTF-8 bytes stop being valid, for messages that name the offending byte. */

/**
 * The length of the longest prefix of `bytes` that decodes as UTF-8, found by halving; an incomplete
 * sequence at the end of a prefix is tolerated (`stream`), so the prefix may end inside the sequence that
 * the next byte breaks.
 */
export function validUtf8Prefix(bytes: Uint8Array): number {
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return lo;
}

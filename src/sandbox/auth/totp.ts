/**
 * Time-based one-time passwords (RFC 6238) on top of HOTP (RFC 4226), with
 * secrets in base32 (RFC 4648), the form authenticator apps are given.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Seconds per TOTP step. */
export const TOTP_STEP_SECONDS = 30;

/** Digits of a TOTP code. */
export const TOTP_DIGITS = 6;

/** Steps of clock drift accepted on either side of the current one. */
export const TOTP_DRIFT_STEPS = 1;

/** The HMAC algorithms RFC 6238 names. */
export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

/**
 * Decodes base32 text (RFC 4648 alphabet). Case, blanks and trailing `=`
 * padding are ignored; any other character throws a RangeError.
 */
export function decodeBase32(text: string): Buffer {
  const clean = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  const out: number[] = [];
  let value = 0;
  let bits = 0;
  for (const ch of clean) {
    const digit = ALPHABET.indexOf(ch);
    if (digit < 0) throw new RangeError('invalid base32 character');
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >>> bits) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** The HOTP code (RFC 4226) of a key at a counter, zero-padded to `digits`. */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The TOTP step a Unix time (seconds) falls in. */
export function totpCounter(unixSeconds: number): number {
  return Math.floor(unixSeconds / TOTP_STEP_SECONDS);
}

/** The TOTP code (RFC 6238) of a key at a Unix time in seconds. */
export function totp(key: Buffer, unixSeconds: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  return hotp(key, totpCounter(unixSeconds), digits, algorithm);
}

/**
 * The time step whose 6-digit SHA-1 TOTP code of the base32 `secret` is
 * `code`, trying the step of `unixSeconds` and one before and after it (clock
 * drift); the latest when several match, undefined when none does. A
 * malformed secret or code matches nothing.
 */
export function matchTotp(secret: string, code: string, unixSeconds: number): number | undefined {
  const given = code.trim();
  if (!new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(given)) return undefined;
  let key: Buffer;
  try {
    key = decodeBase32(secret);
  } catch {
    return undefined;
  }
  if (key.length === 0) return undefined;
  const counter = totpCounter(unixSeconds);
  let matched: number | undefined;
  for (let step = -TOTP_DRIFT_STEPS; step <= TOTP_DRIFT_STEPS; step++) {
    if (counter + step < 0) continue;
    // Compare every candidate in constant time and without stopping early.
    if (timingSafeEqual(Buffer.from(hotp(key, counter + step)), Buffer.from(given))) matched = counter + step;
  }
  return matched;
}

/**
 * True when `code` is the 6-digit SHA-1 TOTP code of the base32 `secret` at
 * `unixSeconds`, or one step before or after it (clock drift).
 * A malformed secret or code is simply not valid.
 */
export function verifyTotp(secret: string, code: string, unixSeconds: number): boolean {
  return matchTotp(secret, code, unixSeconds) !== undefined;
}

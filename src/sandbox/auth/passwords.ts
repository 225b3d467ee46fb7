/**
 * Password and secret hashing with scrypt (never stored in clear):
 * `scrypt$N$r$p$salt$hash`, salt and hash in base64url.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, KEYLEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export function verifySecret(secret: string, stored: string): boolean {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = scryptSync(secret, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

/** A random secret or password: `bytes` random bytes as base64url. */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

let decoy: string | undefined;

/**
 * Verifies a secret against its stored hash, or against a decoy hash when
 * there is none (an unknown user or client), so the answer takes as long
 * either way and timing does not tell which names exist. False without a hash.
 */
export function verifyOrDecoy(secret: string, stored: string | undefined): boolean {
  decoy ??= hashSecret(randomSecret());
  const ok = verifySecret(secret, stored ?? decoy);
  return ok && stored !== undefined;
}

import { describe, expect, it } from 'vitest';
import { decodeBase32, hotp, totp, verifyTotp } from '../../src/sandbox/auth/totp.js';

// RFC 6238 appendix B: seeds are ASCII digits, codes have 8 digits.
const SEEDS = {
  sha1: Buffer.from('12345678901234567890', 'ascii'),
  sha256: Buffer.from('12345678901234567890123456789012', 'ascii'),
  sha512: Buffer.from('1234567890'.repeat(6) + '1234', 'ascii'),
} as const;

const VECTORS: readonly [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

// Base32 of the SHA-1 seed, as an authenticator app would be given it.
const SHA1_SEED_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('decodeBase32', () => {
  it.each([
    ['', ''],
    ['MY======', 'f'],
    ['MZXQ====', 'fo'],
    ['MZXW6===', 'foo'],
    ['MZXW6YQ=', 'foob'],
    ['MZXW6YTB', 'fooba'],
    ['MZXW6YTBOI======', 'foobar'],
  ])('decodes the RFC 4648 vector %s', (encoded, clear) => {
    expect(decodeBase32(encoded).toString('ascii')).toBe(clear);
  });

  it('ignores case, blanks and missing padding', () => {
    expect(decodeBase32('mzxw 6ytb oi').toString('ascii')).toBe('foobar');
    expect(decodeBase32(SHA1_SEED_BASE32).equals(SEEDS.sha1)).toBe(true);
  });

  it('rejects characters outside the alphabet', () => {
    expect(() => decodeBase32('MZXW1')).toThrow(RangeError);
  });
});

describe('hotp', () => {
  it('matches the RFC 4226 appendix D values', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, counter) => hotp(SEEDS.sha1, counter))).toEqual(expected);
  });
});

describe('totp', () => {
  it.each(VECTORS)('matches the RFC 6238 vectors at %i', (time, sha1, sha256, sha512) => {
    expect(totp(SEEDS.sha1, time, 8, 'sha1')).toBe(sha1);
    expect(totp(SEEDS.sha256, time, 8, 'sha256')).toBe(sha256);
    expect(totp(SEEDS.sha512, time, 8, 'sha512')).toBe(sha512);
  });

  it('gives the last six digits with the default settings', () => {
    expect(totp(SEEDS.sha1, 59)).toBe('287082');
    expect(totp(SEEDS.sha1, 1111111109)).toBe('081804');
  });
});

describe('verifyTotp', () => {
  const at = 1111111109; // inside step 37037036 (…080 to …109)
  const code = totp(SEEDS.sha1, at);

  it('accepts the current code, and one step of drift either way', () => {
    expect(verifyTotp(SHA1_SEED_BASE32, code, at)).toBe(true);
    expect(verifyTotp(SHA1_SEED_BASE32, code, at + 30)).toBe(true);
    expect(verifyTotp(SHA1_SEED_BASE32, code, at - 30)).toBe(true);
  });

  it('rejects codes two steps away', () => {
    expect(verifyTotp(SHA1_SEED_BASE32, code, at + 60)).toBe(false);
    expect(verifyTotp(SHA1_SEED_BASE32, code, at - 60)).toBe(false);
  });

  it('rejects wrong or malformed codes and malformed secrets', () => {
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect(verifyTotp(SHA1_SEED_BASE32, wrong, at)).toBe(false);
    expect(verifyTotp(SHA1_SEED_BASE32, '', at)).toBe(false);
    expect(verifyTotp(SHA1_SEED_BASE32, `${code}0`, at)).toBe(false);
    expect(verifyTotp(SHA1_SEED_BASE32, 'abcdef', at)).toBe(false);
    expect(verifyTotp('not base32!', code, at)).toBe(false);
  });
});

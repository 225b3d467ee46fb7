/**
 * The `~` operators read PostgreSQL's syntax, rewritten for RE2
 * (src/sandbox/regex-dialect.ts: POSIX classes, escaped punctuation, `\Z`,
 * `.` across line breaks, embedded options, word boundaries), and tell an
 * invalid pattern from one only a backtracking engine can run. Hostile patterns on that path are a 200 or a
 * 400 in time, never a 500 and never a hang.
 */
import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../src/sandbox/regex.js';
import { useTestSandbox } from '../helpers/sandbox.js';

const s = useTestSandbox({ seedAccounts: 200 });

const count = (pattern: string) => s.call('POST', 'api/v1/accounts', { token: s.token('demo'), json: { filters: { lastname: { '~': pattern } }, count: true } });

describe("the sandbox's ~ dialect", () => {
  it.each([['[[:alpha:]]'], ['[[:digit:][:space:]]'], ['2\\% off'], ['a\\-b'], ['x\\Z'], ['\\\\Z'], ['^[[:alpha:]]+$']])('%s is taken (200)', async (pattern) => {
    const r = await count(pattern);
    expect(r.status, r.text).toBe(200);
  });

  it('\\Z is the end of the text, and an escaped backslash before Z stays a backslash and a Z', async () => {
    const all = (await s.call('POST', 'api/v1/accounts', { token: s.token('demo'), json: { count: true } })).text;
    expect((await count('.\\Z')).text, 'every last name ends').toEqual(all);
    expect((await count('^.\\Z')).text, 'no last name is one character').not.toEqual(all);
    expect((await count('\\\\Z')).text, 'no last name holds a backslash').toMatch(/\b0\b/);
  });

  it.each([
    ['a trailing backslash', 'abc\\'],
    ['an unclosed class', '[[:alpha:]'],
    ['an unknown POSIX class', '[[:nope:]]'],
    ['a backreference', '(a)\\1'],
    ['lookahead', '(?=a)b'],
    ['a lone surrogate', 'a\ud800b'],
    ['a thousand escapes', '\\Z'.repeat(500)],
    ['nested quantifiers', '(a+)+$'.repeat(50)],
  ])('%s: a 200 or a 400 that says why, never a 500, answered in time', async (_what, pattern) => {
    const started = performance.now();
    const r = await count(pattern);
    expect([200, 400], r.text).toContain(r.status);
    expect(performance.now() - started).toBeLessThan(5000);
    const health = await s.call('GET', '/_sandbox/health', { token: null });
    expect(health.status).toBe(200);
  });
});

describe("PostgreSQL's dialect rewritten for RE2 (src/sandbox/regex-dialect.ts)", () => {
  const test = (pattern: string, text: string, ci = false): boolean | string => {
    const rx = compileRegex(pattern, ci);
    return rx.ok ? rx.test(text) : rx.reason;
  };

  it('. and [^…] match a line break, ^ and $ anchor the whole text (PostgreSQL\'s default)', () => {
    expect(test('account.Prefers', 'account\nPrefers')).toBe(true);
    expect(test('account[^x]Prefers', 'account\nPrefers')).toBe(true);
    expect(test('^Prefers', 'account\nPrefers')).toBe(false);
    expect(test('account$', 'account\nPrefers')).toBe(false);
  });

  it('embedded options at the start: (?i) (?c) (?s) (?n) (?p) (?w) (?x) (?q); elsewhere a (? with a letter is invalid', () => {
    expect(test('(?i)^key', 'Key')).toBe(true);
    expect(test('(?c)^key', 'Key', true)).toBe(false);
    expect(test('(?s)a.b', 'a\nb')).toBe(true);
    expect(test('(?n)a.b', 'a\nb')).toBe(false);
    expect(test('(?n)a[^x]b', 'a\nb')).toBe(false);
    expect(test('(?n)^b', 'a\nb')).toBe(true);
    expect(test('(?p)^b', 'a\nb')).toBe(false);
    expect(test('(?p)a.b', 'a\nb')).toBe(false);
    expect(test('(?w)^b', 'a\nb')).toBe(true);
    expect(test('(?w)a.b', 'a\nb')).toBe(true);
    expect(test('(?x) a b  # a comment', 'ab')).toBe(true);
    expect(test('(?x)a[ ]b', 'a b')).toBe(true);
    expect(test('(?q)a.b', 'axb')).toBe(false);
    expect(test('(?q)a.b', 'a.b')).toBe(true);
    expect(test('***=a.b(', 'a.b(')).toBe(true);
    expect(test('***:(?i)A', 'a')).toBe(true);
    expect(test('a(?i)b', 'ab')).toBe('invalid');
    expect(test('(?z)a', 'a')).toBe('invalid');
    expect(test('(?i', 'a')).toBe('invalid');
    expect(test('***a', 'a')).toBe('invalid');
    expect(test('(?b)a', 'a')).toBe('unsupported');
  });

  it('word boundaries \\y \\Y \\m \\M [[:<:]] [[:>:]], and the escapes PostgreSQL reads its own way', () => {
    expect(test('\\yaccount\\y', 'Key account.')).toBe(true);
    expect(test('\\yccount', 'Key account.')).toBe(false);
    expect(test('\\Yccount', 'Key account.')).toBe(true);
    expect(test('\\mKey', 'Key account')).toBe(true);
    expect(test('\\mey', 'Key account')).toBe(false);
    expect(test('account\\M', 'Key account')).toBe(true);
    expect(test('accoun\\M', 'Key account')).toBe(false);
    expect(test('[[:<:]]Key', 'Key account')).toBe(true);
    expect(test('accoun[[:>:]]', 'Key account')).toBe(false);
    expect(test('a\\Bb', 'a\\b')).toBe(true);
    expect(test('a\\bb', 'a\bb')).toBe(true);
    expect(test('\\u00e9\\x41\\U0001F600', 'éA😀')).toBe(true);
    expect(test('\\e', '\u001b')).toBe(true);
    expect(test('\\cA', '\u0001')).toBe(true);
    expect(test('a\\Z', 'a')).toBe(true);
  });

  it('~* folds the letters JavaScript folds (as ~~* does), Unicode 16 ones included, in and out of brackets', () => {
    expect(test('ᲊ', 'Ᲊ', true)).toBe(true);
    expect(test('[ɤ]', 'Ɤ', true)).toBe(true);
    expect(test('𐵰', '𐵐', true)).toBe(true);
    expect(test('ᲊ', 'Ᲊ')).toBe(false);
    expect(test('ı', 'I', true)).toBe(false);
    expect(test('(?i)ᲊ', 'Ᲊ')).toBe(true);
  });

  it('backreferences and lookaround are unsupported, not invalid; named groups are invalid, as in PostgreSQL', () => {
    for (const p of ['(a)\\1', '(?=a)', '(?!a)', '(?<=a)b', '(?<!a)b']) expect(test(p, 'a'), p).toBe('unsupported');
    for (const p of ['(?<n>a)', 'x(?P<n>a)', '\\1(a)', '\\pL']) expect(test(p, 'a'), p).toBe('invalid');
  });
});

/**
 * The `~` operators read RE2's syntax first (PostgreSQL's POSIX classes,
 * escaped punctuation, `\Z` read as `\z`: src/sandbox/regex.ts), and fall
 * back to JavaScript's only to tell an invalid pattern from one only a
 * backtracking engine can run. Hostile patterns on that path are a 200 or a
 * 400 in time, never a 500 and never a hang.
 */
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';

const s = useTestSandbox({ seedAccounts: 200 });

const count = (pattern: string) => s.call('POST', 'api/v1/accounts', { token: s.token('demo'), json: { filters: { lastname: { '~': pattern } }, count: true } });

describe("the sandbox's ~ dialect", () => {
  it.each([['[[:alpha:]]'], ['[[:digit:][:space:]]'], ['2\\% off'], ['a\\-b'], ['x\\Z'], ['\\\\Z'], ['^\\p{L}+$']])('%s is taken (200)', async (pattern) => {
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

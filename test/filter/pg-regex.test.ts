/**
 * src/util/pg-regex.ts reads `~` patterns by PostgreSQL's rules, for svc's check before sending
 * (src/filter/regex.ts) and for the sandbox's rewriting for RE2 (src/sandbox/regex-dialect.ts).
 * Every verdict below is PostgreSQL 15.18's (`SELECT 'x' ~ pattern`, UTF-8 database): "ok" or its
 * error without the "invalid regular expression: " prefix. svc refuses exactly what PostgreSQL
 * refuses, with PostgreSQL's words first; the sandbox calls the same patterns invalid, and runs or
 * calls unsupported (backreferences, lookaround, (?b), codes that are no Unicode character) the rest.
 */
import { describe, expect, it } from 'vitest';
import { regexProblem } from '../../src/filter/regex.js';
import { compileRegex } from '../../src/sandbox/regex.js';

const POSTGRESQL: [string, string][] = [
  ['[[:alpha:]', 'brackets [] not balanced'],
  ['A[]y', 'brackets [] not balanced'],
  ['\\q', 'invalid escape \\ sequence'],
  ['abc\\x', 'invalid escape \\ sequence'],
  ['\\u12', 'invalid escape \\ sequence'],
  ['[\\y]', 'invalid escape \\ sequence'],
  ['[[:<:]x]', 'invalid character class'],
  ['[[:ALPHA:]]', 'invalid character class'],
  ['[a-\\d]', 'invalid character range'],
  ['y(B\\c)ux', 'parentheses () not balanced'],
  ['C:\\B+Users', 'ok'],
  ['\\b?x', 'ok'],
  ['\\c[', 'ok'],
  ['^[[:digit:]+*/-]+$', 'ok'],
  ['C:(?#drive)\\B', 'ok'],
  ['(?#c)*a', 'quantifier operand invalid'],
  ['a(?#c)*', 'ok'],
  ['a{256}', 'invalid repetition count(s)'],
  ['a{255}', 'ok'],
  ['a{00001}', 'ok'],
  ['a{0,01}', 'ok'],
  ['a{1', 'braces {} not balanced'],
  ['a{1x}', 'invalid repetition count(s)'],
  ['a{1,2,3}', 'invalid repetition count(s)'],
  ['a{1 }', 'invalid repetition count(s)'],
  ['(?x)a{1 }', 'ok'],
  ['a{2,1}', 'invalid repetition count(s)'],
  ['{1', 'quantifier operand invalid'],
  ['{', 'ok'],
  ['a{,2}', 'ok'],
  ['\\z', 'invalid escape \\ sequence'],
  ['\\Qa.b\\E', 'invalid escape \\ sequence'],
  ['\\pL', 'invalid escape \\ sequence'],
  ['\\p{Lu}', 'invalid escape \\ sequence'],
  ['\\C', 'invalid escape \\ sequence'],
  ['\\y*a', 'quantifier operand invalid'],
  ['^*a', 'quantifier operand invalid'],
  ['a$+', 'quantifier operand invalid'],
  ['\\A*', 'quantifier operand invalid'],
  ['[[:<:]]*a', 'quantifier operand invalid'],
  ['[[:alpha:]-z]', 'invalid character range'],
  ['[\\d-z]', 'invalid character range'],
  ['[a-z-0]', 'invalid character range'],
  ['[a-z-]', 'ok'],
  ['[!--]', 'ok'],
  ['(?x)a * ?', 'quantifier operand invalid'],
  ['(?x)( ?:a)', 'quantifier operand invalid'],
  ['(?x)a*?', 'ok'],
  ['\\10', 'ok'],
  ['\\18', 'ok'],
  ['\\8', 'invalid backreference number'],
  ['(a)\\1', 'ok'],
  ['\\1(a)', 'invalid backreference number'],
  ['(a\\1)', 'invalid backreference number'],
  ['[\\1]', 'invalid escape \\ sequence'],
  ['[\\10]', 'ok'],
  ['[[.space.]]', 'ok'],
  ['[[.hyphen.]]', 'ok'],
  ['[[.Space.]]', 'invalid collating element'],
  ['[[=ab=]]', 'invalid collating element'],
  ['(?<n>a)', 'quantifier operand invalid'],
  ['(?P<n>a)', 'invalid embedded option'],
  ['a(?i)', 'quantifier operand invalid'],
  ['(?z)a', 'invalid embedded option'],
  ['(?i', 'invalid embedded option'],
  ['***x', 'quantifier operand invalid'],
  ['***=((', 'ok'],
  ['(?q)[[', 'ok'],
  ['[]]', 'ok'],
  ['[^]]', 'ok'],
  ['[]', 'brackets [] not balanced'],
  ['\\xFFFFFFFF', 'invalid escape \\ sequence'],
  ['\\uD800', 'ok'],
  ['(?b)a', 'ok'],
  ['(?=a)b', 'ok'],
  ['(?<=a)b', 'ok'],
  ['(?=a)*', 'quantifier operand invalid'],
];

describe("PostgreSQL's verdicts on ~ patterns, as svc and the sandbox read them", () => {
  it.each(POSTGRESQL)('%j: %s', (pattern, verdict) => {
    const problem = regexProblem(pattern);
    const sandbox = compileRegex(pattern, false);
    if (verdict === 'ok') {
      expect(problem).toBeUndefined();
      expect(sandbox.ok || sandbox.reason === 'unsupported', JSON.stringify(sandbox)).toBe(true);
    } else {
      expect(problem?.startsWith(`${verdict}: `), problem).toBe(true);
      expect(sandbox.ok ? 'ran' : sandbox.reason).toBe('invalid');
    }
  });
});

describe("the sandbox's matching of what PostgreSQL reads its own way", () => {
  const test = (pattern: string, text: string): boolean | string => {
    const rx = compileRegex(pattern, false);
    return rx.ok ? rx.test(text) : rx.reason;
  };

  it('(?#…) is left out; \\B is a backslash; \\c[ is ESC; \\10 is octal before ten groups; named collating elements', () => {
    expect(test('C:(?#drive)\\B', 'C:\\')).toBe(true);
    expect(test('a(?#c)*b', 'aaab')).toBe(true);
    expect(test('C:\\B+U', 'C:\\\\U')).toBe(true);
    expect(test('^\\c[$', '\u001b')).toBe(true);
    expect(test('^\\10$', '\b')).toBe(true);
    expect(test('^[[.space.]]$', ' ')).toBe(true);
    expect(test('^[[.hyphen.]]$', '-')).toBe(true);
    expect(test('^[[:digit:]+*/-]+$', '1+2*3')).toBe(true);
  });

  it('bounds read digits as numbers ({00001}, {0,01}); in (?x) blanks inside a bound are left out', () => {
    expect(test('^a{00001}$', 'a')).toBe(true);
    expect(test('^a{0,01}$', '')).toBe(true);
    expect(test('^a{0,01}$', 'aa')).toBe(false);
    expect(test('(?x)^a{ 2 }$', 'aa')).toBe(true);
  });

  it('(?n): \\D and \\W match a line break, . and [^…] do not', () => {
    expect(test('(?n)a\\Db', 'a\nb')).toBe(true);
    expect(test('(?n)a\\Wb', 'a\nb')).toBe(true);
    expect(test('(?n)a.b', 'a\nb')).toBe(false);
    expect(test('(?n)a[^x]b', 'a\nb')).toBe(false);
  });

  it('[[:alpha:]], [[:upper:]], [[:lower:]] and \\w take letters outside ASCII', () => {
    expect(test('^[[:alpha:]]+$', 'Müller')).toBe(true);
    expect(test('^\\w+$', 'Ärger1')).toBe(true);
    expect(test('^[[:upper:]]', 'Ärger')).toBe(true);
    expect(test('^[[:lower:]]+$', 'ärger')).toBe(true);
    expect(test('^\\W$', 'é')).toBe(false);
  });
});

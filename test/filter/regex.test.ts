/**
 * What svc checks in a `~` pattern before sending it (src/filter/regex.ts):
 * PostgreSQL's dialect, not JavaScript's. Embedded options and directors at
 * the start and PostgreSQL's own escapes are sent; what PostgreSQL refuses is
 * refused here; what only a backtracking engine runs is the service's to judge.
 * And extension values: whole numbers that a JSON number holds exactly are sent.
 */
import { describe, expect, it } from 'vitest';
import { findFamily, type ResourceFamily } from '../../src/catalogue/index.js';
import { compileFilter } from '../../src/filter/index.js';
import { regexProblem } from '../../src/filter/regex.js';

function family(name: string): ResourceFamily {
  const f = findFamily(name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

const compiled = (text: string): unknown => {
  const r = compileFilter(text, family('opportunities'), { now: 0 });
  return r.ok ? r.filter : r.error.message;
};

describe("regexProblem: PostgreSQL's regular expressions", () => {
  it.each([
    ['(?i)^key'],
    ['(?s)a.b'],
    ['(?nx) a b # comment ( not a group'],
    ['(?q)(((['],
    ['***=(((['],
    ['***:(?i)a'],
    ['\\yword\\y'],
    ['\\mKey'],
    ['account\\M'],
    ['\\Yccount'],
    ['[[:<:]]Key'],
    ['account[[:>:]]'],
    ['x\\Z'],
    ['2\\% off'],
    ['(a)\\1'],
    ['(?=a)a'],
  ])('%s is sent', (pattern) => {
    expect(regexProblem(pattern)).toBeUndefined();
  });

  it.each([
    ['(ab', /parentheses \(\) not balanced/],
    ['a(?i)b', /embedded options such as \(\?i\) may only start the expression/],
    ['(?z)a', /invalid embedded option: 'z' is not one/],
    ['(?i', /need a closing \)/],
    ['***a', /'\*\*\*' at the start must be followed by ':'/],
    ['*a', /quantifier operand invalid: '\*' has nothing before it/],
    ['a\\', /invalid escape \\ sequence: a \\ at the end/],
  ])('%s is refused', (pattern, why) => {
    expect(regexProblem(pattern)).toMatch(why);
  });

  it('the refusal names the whole pattern as --filter gave it', () => {
    expect(compiled('name ~ "(?i)(ab"')).toBe("invalid regular expression: /(?i)(ab/: parentheses () not balanced: a '(' without its ')'");
    expect(compiled('name ~ "(?i)^s9l"')).toEqual({ name: { '~': '(?i)^s9l' } });
  });
});

describe('extdata: whole numbers past 2^53', () => {
  it('are sent when a JSON number holds them exactly (2^53 + 2), refused when it would send a neighbour (2^53 + 1)', () => {
    expect(compiled('extdata.score = 9007199254740994')).toEqual({ 'extdata.score': 9007199254740994 });
    expect(compiled('extdata.score in (9007199254740994, -9007199254740994)')).toEqual({ 'extdata.score': { IN: [9007199254740994, -9007199254740994] } });
    expect(compiled('extdata.score > 18014398509481984')).toEqual({ 'extdata.score': { '>': 18014398509481984 } });
    expect(compiled('extdata.score = 9007199254740993')).toMatch(/not a number JSON holds exactly.*quote it to compare text/);
    expect(compiled('extdata.score = "9007199254740993"')).toEqual({ 'extdata.score': '9007199254740993' });
  });
});

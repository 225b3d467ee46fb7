import { describe, expect, it } from 'vitest';
import { findFamily, type ResourceFamily } from '../../src/catalogue/index.js';
import { compileFilter, renderFilterError } from '../../src/filter/index.js';

const NOW = Date.UTC(2026, 10, 18, 14, 30, 0);

function family(name: string): ResourceFamily {
  const f = findFamily(name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

/** The rendered error of an expression that must fail. */
function rendered(text: string, fam = 'accounts', timeZone = 'Europe/Berlin'): string {
  const r = compileFilter(text, family(fam), { now: NOW, timeZone });
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.filter)}`);
  return renderFilterError(text, r.error);
}

/** Message, expression and caret line, built by hand. */
const lines = (message: string, text: string, caret: string): string => `${message}\n  ${text}\n  ${caret}`;

describe('compileFilter: errors with message, expression and caret', () => {
  it.each([
    ['unknown field, with did-you-mean', 'lastnme = Smith', "unknown field 'lastnme' on accounts; did you mean 'lastname'?", '^^^^^^^'],
    ['unknown field after and', "type = 1 and citty = 'x'", "unknown field 'citty' on accounts; see: svc describe accounts", '             ^^^^^'],
    ['unknown related field, pointing at its part', 'contact.citty = Berlin', "unknown field 'citty' on contacts (in 'contact.citty'); did you mean 'city'?", '        ^^^^^'],
    ['unknown reference field', 'contct.city = Berlin', "unknown field 'contct' on accounts; did you mean 'contact'?", '^^^^^^'],
    ['a path through a field that refers to nothing', 'lastname.x = 1', "'lastname' on accounts refers to no other family, so 'lastname.x' cannot follow it", '^^^^^^^^'],
    ['a path two records deep', 'contact.fork.name = x', "'contact.fork.name' goes deeper than one related record; only field.field paths are allowed", '^^^^^^^^^^^^^^^^^'],
    ['unknown enum name, with the valid names', 'type = CUSTUMER', "unknown value 'CUSTUMER' for type on accounts; did you mean 'CUSTOMER'? use one of PROSPECT, CUSTOMER, SUPPLIER, CUSTOMERANDSUPPLIER, COMPETITOR, EMPLOYEE or a number", '       ^^^^^^^^'],
    ['unknown enum name in a list', 'type in (CUSTOMER, VENDOR)', "unknown value 'VENDOR' for type on accounts; use one of PROSPECT, CUSTOMER, SUPPLIER, CUSTOMERANDSUPPLIER, COMPETITOR, EMPLOYEE or a number", '                   ^^^^^^'],
    ['a bad date', 'creationdate > 2026-13-01', "'2026-13-01' is not a valid date (for creationdate on accounts)", '               ^^^^^^^^^^'],
    ['not a date at all', 'creationdate > lastweek', "'lastweek' is not a date; use 2026-11-01, 2026-11-01T08:30, -7d, today or a number of Unix seconds (for creationdate on accounts)", '               ^^^^^^^^'],
    ['unbalanced opening parenthesis', '(type = 1 or type = 2', "unbalanced '(': add the ')' that closes it", '^'],
    ['unbalanced closing parenthesis', 'type = 1)', "unbalanced ')': there is no '(' for it to close", '        ^'],
    ['dangling operator', 'type =', "expected a value after '=', found the end of the filter", '     ^'],
    ['dangling word operator', 'lastname not like', "expected a value after 'not like', found the end of the filter", '         ^^^^^^^^'],
    ['dangling and', 'type = 1 and', "expected a field name after 'and', found the end of the filter", '            ^'],
    ['a misspelt and', 'type = 1 adn locked = 1', "expected 'and', 'or' or the end of the filter, found 'adn'; did you mean 'and'?", '         ^^^'],
    ['a keyword as a value', 'lastname = and', "expected a value after '=', found 'and'; quote 'and' to use it as a text", '           ^^^'],
    ['a misspelt word operator', 'lastname lik x', "expected an operator after 'lastname', found 'lik'; did you mean 'like'?", '         ^^^'],
    ['an unknown operator symbol', 'type == 1', "unknown operator '=='; use one of = != <> < <= > >= ~ ~* !~ !~* ~~ ~~* !~~ !~~*", '     ^^'],
    ['unterminated string', 'lastname = "Smith', 'unterminated text: add the closing "', '           ^^^^^^'],
    ['unexpected character', 'lastname = a;b', "unexpected character ';' in the filter; quote texts that hold it", '            ^'],
    ['a text for an integer field', 'ID = abc', "'abc' is not an integer; ID is int32 (value of ID on accounts)", '     ^^^'],
    ['a text for a flag', 'locked = maybe', "'maybe' is not a flag; use true, false, 1 or 0 (value of locked on accounts)", '         ^^^^^'],
    ['an integer beyond the safe range', 'ID > 1 and lastname = x and fork < 99999999999999999999', "'99999999999999999999' is too large for an integer (value of fork on accounts)", '                                   ^^^^^^^^^^^^^^^^^^^^'],
    ['a regex operator on a number', 'type ~* "^1"', "operator '~*' applies to text fields, and type on accounts is int16", '     ^^'],
    ['an invalid regular expression', 'lastname ~ "(ab"', "invalid regular expression: /(ab/: parentheses () not balanced: a '(' without its ')'", '           ^^^^^'],
    ['null with an ordering operator', 'contact < null', "null compares only with = and !=; use 'is null' or 'is not null'", '        ^^^^^^'],
    ['null in a list', 'contact in (1, null)', "a list cannot hold null (it never matches); add 'or contact is null'", '               ^^^^'],
    ['is without null', 'contact is empty', "expected 'null' after 'is', found 'empty'", '           ^^^^^'],
    ['an empty list', 'type in ()', 'the list is empty; give at least one value', '        ^^'],
    ['an empty filter', '   ', 'the filter is empty; give a condition such as: lastname = Smith', '   ^'],
  ])('%s', (_name, text, message, caret) => {
    expect(rendered(text)).toBe(lines(message, text, caret));
  });

  it('names a field the family lacks (visibility on transactions)', () => {
    expect(rendered('visibility = REGULAR', 'transactions')).toBe(
      lines("unknown field 'visibility' on transactions; see: svc describe transactions", 'visibility = REGULAR', '^^^^^^^^^^'),
    );
  });

  it('refuses a composite field and a computed one', () => {
    expect(rendered("type = 1 and items ~ 'x'", 'transactions')).toBe(
      lines("field 'items' on transactions is a composite (items) field and cannot be filtered", "type = 1 and items ~ 'x'", '             ^^^^^'),
    );
    expect(rendered('calculation = 1', 'contracts')).toBe(
      lines("field 'calculation' on contracts is computed, not stored, and cannot be filtered", 'calculation = 1', '^^^^^^^^^^^'),
    );
  });

  it('reports an unknown time zone at the date it concerns', () => {
    expect(rendered('creationdate > today', 'accounts', 'Mars/Olympus')).toBe(
      lines("unknown time zone 'Mars/Olympus'; use an IANA name such as Europe/Berlin (for creationdate on accounts)", 'creationdate > today', '               ^^^^^'),
    );
  });

  it('renders an empty expression as two lines and shows line breaks as spaces', () => {
    expect(rendered('')).toBe('the filter is empty; give a condition such as: lastname = Smith\n  ^');
    expect(rendered('type = "a\nb"')).toBe(
      lines("unknown value 'a\\u000ab' for type on accounts; use one of PROSPECT, CUSTOMER, SUPPLIER, CUSTOMERANDSUPPLIER, COMPETITOR, EMPLOYEE or a number", 'type = "a b"', '       ^^^^^'),
    );
    expect(rendered('type = 1\nand lastnme = x')).toBe(lines("unknown field 'lastnme' on accounts; did you mean 'lastname'?", 'type = 1 and lastnme = x', '             ^^^^^^^'));
  });
});

describe('renderFilterError: what a terminal shows', () => {
  it('names a doubled or leading and/or as a missing condition, with the caret on the keyword', () => {
    expect(rendered('ID > 1 and and ID < 2')).toBe(
      lines("expected a condition after 'and', found 'and'; remove it or add the missing condition", 'ID > 1 and and ID < 2', '           ^^^'),
    );
    expect(rendered('ID > 1 OR or ID < 2')).toBe(lines("expected a condition after 'OR', found 'or'; remove it or add the missing condition", 'ID > 1 OR or ID < 2', '          ^^'));
    expect(rendered('(and ID > 1)')).toBe(lines("expected a condition after '(', found 'and'; remove it or add the missing condition", '(and ID > 1)', ' ^^^'));
    expect(rendered('not or ID > 1')).toBe(lines("expected a condition after 'not', found 'or'; remove it or add the missing condition", 'not or ID > 1', '    ^^'));
    expect(rendered('and ID > 1')).toBe(lines("expected a condition, found 'and'; start the filter with a condition such as lastname = Smith", 'and ID > 1', '^^^'));
  });

  it('places the caret by display columns: wide characters take two, combining marks none', () => {
    expect(rendered('lastname = "東京東京" and tpye = 1')).toBe(
      lines("unknown field 'tpye' on accounts; did you mean 'type'?", 'lastname = "東京東京" and tpye = 1', `${' '.repeat(26)}^^^^`),
    );
    expect(rendered('lastname = "😀x" and tpye = 1')).toBe(lines("unknown field 'tpye' on accounts; did you mean 'type'?", 'lastname = "😀x" and tpye = 1', `${' '.repeat(21)}^^^^`));
    expect(rendered('lastname = "e\u0301" and tpye = 1')).toBe(lines("unknown field 'tpye' on accounts; did you mean 'type'?", 'lastname = "e\u0301" and tpye = 1', `${' '.repeat(19)}^^^^`));
    expect(rendered('lastname = "東京')).toBe(lines('unterminated text: add the closing "', 'lastname = "東京', '           ^^^^^'));
  });

  it('shows characters that act on a terminal as ?, keeping the caret aligned, and names them by code in the message', () => {
    for (const hostile of ['\u202e', '\u2066', '\u009b', '\u0085', '\u001b', '\u200b']) {
      expect(rendered(`lastname = "${hostile}x" and tpye = 1`)).toBe(
        lines("unknown field 'tpye' on accounts; did you mean 'type'?", 'lastname = "?x" and tpye = 1', `${' '.repeat(20)}^^^^`),
      );
    }
    expect(rendered('\u009b2J = 1')).toBe(lines("unexpected character U+009B in the filter; quote texts that hold it", '?2J = 1', '^'));
    expect(rendered('lastname = x\u202e')).toBe(lines("unexpected character U+202E in the filter; quote texts that hold it", 'lastname = x?', '            ^'));
    expect(rendered('lastname = a\u200b')).toBe(lines("unexpected character U+200B in the filter; quote texts that hold it", 'lastname = a?', '            ^'));
    expect(rendered('type = "\u202ex"')).toMatch(/^unknown value '\\u202ex' for type/);
  });

  it('cuts a long expression to a window of about 80 columns around the fault, with … at each cut end', () => {
    const many = Array.from({ length: 40_000 }, (_, i) => `ID != ${i}`).join(' and ');
    const atEnd = rendered(`${many} and tpye = 1`);
    expect(atEnd).toBe(
      lines("unknown field 'tpye' on accounts; did you mean 'type'?", '… and ID != 39996 and ID != 39997 and ID != 39998 and ID != 39999 and tpye = 1', `${' '.repeat(70)}^^^^`),
    );
    const inside = rendered(`${many} and tpye = 1 and ${many}`).split('\n');
    expect(inside[1]).toBe('  …998 and ID != 39999 and tpye = 1 and ID != 0 and ID != 1 and ID != 2 and ID !=…');
    expect(inside[2]).toBe(`  ${' '.repeat(25)}^^^^`);
    const atStart = rendered(`tpye = 1 and ${many}`).split('\n');
    expect(atStart[1]).toBe('  tpye = 1 and ID != 0 and ID != 1 and ID != 2 and ID != 3 and ID != 4 and ID !=…');
    expect(atStart[2]).toBe('  ^^^^');
    for (const r of [atEnd, inside.join('\n'), atStart.join('\n')]) expect(r.length).toBeLessThan(400);
  });

  it('keeps a long span within the window, and a long token short in the message', () => {
    const open = rendered(`ID > 1 and lastname = "${'x'.repeat(100_000)}`).split('\n');
    expect(open[1]).toBe(`  ID > 1 and lastname = "${'x'.repeat(55)}…`);
    expect(open[2]).toBe(`  ${' '.repeat(22)}${'^'.repeat(56)}`);
    const word = rendered(`${'a'.repeat(1000)} = 1`);
    expect(word.split('\n')[0]).toBe(`unknown field '${'a'.repeat(60)}…' on accounts; see: svc describe accounts`);
    expect(word.length).toBeLessThan(400);
    const wide = rendered(`${'東'.repeat(100)} tpye = 1`).split('\n');
    expect(wide[1]).toBe(`  …${'東'.repeat(34)} tpye = 1`);
    expect(wide[2]).toBe(`  ${' '.repeat(70)}^^^^`);
  });
});

/**
 * s7-reads: hostile input to the filter language and the read options
 * (`svc <family> query|count|sum|get|exists`). README, Exit codes: "2 usage: bad
 * input: unknown command, option, resource or field, or an invalid value;
 * nothing was sent", and "An error is one line on stderr naming the problem and
 * the fix (a filter's adds the expression and a caret under the fault)".
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();
const sent = () => sandbox().sandbox.hooks.requests;

/** The three lines of a filter error: message, expression, caret line. */
function errorLines(stderr: string): string[] {
  return stderr.replace(/\n$/, '').split('\n');
}

/** Terminal columns of a text (East Asian wide = 2, combining marks = 0), enough for the texts below. */
function columns(text: string): number {
  let n = 0;
  for (const ch of text) {
    if (/\p{Mn}/u.test(ch)) continue;
    n += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|\p{Extended_Pictographic}/u.test(ch) ? 2 : 1;
  }
  return n;
}

describe('HELD: bad filter expressions are exit 2 with the fault named and a caret, nothing sent', () => {
  it.each([
    ['tpye = CUSTOMER', /unknown field 'tpye' on accounts; did you mean 'type'\?/],
    ['type == CUSTOMER', /unknown operator '=='; use one of/],
    ['type = CUSTOMR', /did you mean 'CUSTOMER'\?/],
    ['lastname lke "x"', /did you mean 'like'\?/],
    ['__proto__ = 1', /unknown field '__proto__' on accounts/],
    ['constructor.prototype = 1', /unknown field 'constructor' on accounts/],
    ['contact.__proto__ = 1', /unknown field '__proto__' on contacts/],
    ['toString = 1', /unknown field 'toString'/],
    ['ID = 9007199254740993', /too large/],
    ['ID = 1e309', /not an integer/],
    ['ID = 0x10', /not an integer/],
    ['ID = NaN', /not an integer/],
    ['lastmodified > 2026-02-29', /not a valid date/],
    ['lastmodified > 2016-12-31T23:59:60Z', /not a valid date/],
    ['lastmodified > 0000-01-01', /not a valid date/],
    ['lastmodified > 10000-01-01', /not a date/],
    ['lastmodified > 2026-11-01T08:30+25:00', /not a valid offset/],
    ['lastname ~ "(a"', /invalid regular expression/],
    ['locked = 2', /not a flag/],
    ['(((ID > 1)', /./],
    ['ID > 1 and', /./],
    ['', /the filter is empty/],
  ])('%s', async (filter, message) => {
    const r = await run(['accounts', 'count', '--filter', filter]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: /);
    expect(errorLines(r.stderr)[0]).toMatch(message);
    expect(r.stderr).toMatch(/\^/);
    expect(sent()).toEqual([]);
  });

  it('10,000 and 100,000 levels of parentheses: exit 2 at once, never a stack overflow', async () => {
    for (const n of [10_000, 100_000]) {
      const r = await run(['accounts', 'count', '--filter', `${'('.repeat(n)}ID > 1${')'.repeat(n)}`]);
      expect(r.code).toBe(2);
      expect(errorLines(r.stderr)[0]).toMatch(/nests deeper than/);
    }
    expect(sent()).toEqual([]);
  });

  it('NUL and a lone surrogate in a quoted value reach the sandbox as data: exit 0, never a 5xx', async () => {
    for (const value of ['a\u0000b', '\ud800', 'x\udfff']) {
      for (const op of ['=', '~', 'like']) {
        const r = await run(['accounts', 'count', '--filter', `lastname ${op} "${value}"`]);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual({ count: 0 });
      }
    }
    expect(sent().every((q) => (q.status ?? 0) < 500)).toBe(true);
  });
});

describe('values the filter sends', () => {
  it.each([
    // Europe/Berlin, 29 March 2026: 01:30 is CET (UTC+1), half an hour before clocks jump from 02:00 to 03:00
    ['Europe/Berlin', '2026-03-29T01:30', Date.UTC(2026, 2, 29, 0, 30) / 1000],
    ['Europe/Berlin', '2026-03-29T01:00', Date.UTC(2026, 2, 29, 0, 0) / 1000],
    // America/New_York, 1 November 2026: 03:00 is EST (UTC-5), an hour after clocks fall back from 02:00 to 01:00
    ['America/New_York', '2026-11-01T03:00', Date.UTC(2026, 10, 1, 8, 0) / 1000],
    ['America/New_York', '2026-11-01T02:30', Date.UTC(2026, 10, 1, 7, 30) / 1000],
  ])('a wall-clock time next to a DST change is the right moment: --tz %s, %s', async (tz, wall, seconds) => {
    const r = await run(['accounts', 'count', '--tz', tz, '--filter', `lastmodified >= ${wall}`, '--explain']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ lastmodified: { '>=': seconds } });
  });

  it('today in America/Santiago on 6 September 2026 (midnight is skipped: the day starts at 01:00 -03, 04:00Z) is not 23:00 the day before', async () => {
    const r = await run(['accounts', 'count', '--tz', 'America/Santiago', '--filter', 'lastmodified >= today', '--explain'], { now: () => Date.UTC(2026, 8, 6, 15, 0) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ lastmodified: { '>=': Date.UTC(2026, 8, 6, 4, 0) / 1000 } });
  });

  it('HELD: the same wall-clock times away from a DST change', async () => {
    const r = await run(['accounts', 'count', '--tz', 'Europe/Berlin', '--filter', 'lastmodified >= 2026-03-28T01:30', '--explain']);
    expect(JSON.parse(r.stdout)).toEqual({ lastmodified: { '>=': Date.UTC(2026, 2, 28, 0, 30) / 1000 } });
  });

  it('extdata.n = 9007199254740993 is refused (as ID = 9007199254740993 and svc api -F are), not sent rounded to 9007199254740992', async () => {
    const r = await run(['accounts', 'count', '--filter', 'extdata.n = 9007199254740993', '--explain']);
    expect(r.stdout).not.toContain('9007199254740992');
    expect(r.code).toBe(2);
  });
});

describe('filter errors are readable on a terminal', () => {
  it.each([
    ['ID > 1 and and ID < 2', 11],
    ['ID > 1 or or ID < 2', 10],
    ['and ID > 1', 0],
  ])('a doubled or leading keyword (%s) is named as such, not answered with "did you mean \'in\'?"', async (filter, at) => {
    const r = await run(['accounts', 'count', '--filter', filter]);
    expect(r.code).toBe(2);
    const [message, , caret] = errorLines(r.stderr);
    expect(message).not.toMatch(/did you mean 'in'/);
    expect((caret ?? '').indexOf('^') - 2, r.stderr).toBe(at);
  });

  it('a 1 MB expression with a fault at its end: the error is a few lines of sensible length, not the whole megabyte twice', async () => {
    const filter = `${Array.from({ length: 40_000 }, (_, i) => `ID != ${i}`).join(' and ')} and tpye = 1`;
    expect(filter.length).toBeGreaterThan(400_000);
    const big = `${filter}${' and ID > 0'.repeat(Math.ceil((1_048_576 - filter.length) / 11))}`;
    const r = await run(['accounts', 'count', '--filter', big]);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)[0]).toMatch(/unknown field 'tpye'/);
    expect(r.stderr.length, 'bytes of stderr').toBeLessThan(4096);
    expect(sent()).toEqual([]);
  });

  it('the caret stands under the fault when the expression holds wide (CJK) characters', async () => {
    const filter = 'lastname = "東京東京" and tpye = 1';
    const r = await run(['accounts', 'count', '--filter', filter]);
    expect(r.code).toBe(2);
    const [, shown, caret] = errorLines(r.stderr);
    expect(shown).toBe(`  ${filter}`);
    const at = (caret ?? '').indexOf('^');
    expect(at, `caret line: ${JSON.stringify(caret)}`).toBe(2 + columns('lastname = "東京東京" and '));
  });

  it('the expression echoed on stderr drops C1 controls and bidi overrides, as tables do (README, Output)', async () => {
    for (const hostile of ['\u202e', '\u009b2J', '\u2066']) {
      const r = await run(['accounts', 'count', '--filter', `lastname = "${hostile}x" and tpye = 1`]);
      expect(r.code).toBe(2);
      expect(r.stderr, JSON.stringify(r.stderr)).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    const c1 = await run(['accounts', 'count', '--filter', '\u009b2J = 1']);
    expect(c1.code).toBe(2);
    expect(c1.stderr, JSON.stringify(c1.stderr)).not.toMatch(/[\u0080-\u009f]/);
  });
});

describe('regular expressions: svc and the sandbox agree on what is valid (README: "PostgreSQL semantics: `~` regular expressions")', () => {
  it('a POSIX class [[:alpha:]] (PostgreSQL) matches, rather than passing svc and failing in the sandbox with exit 1', async () => {
    const all = await run(['accounts', 'count']);
    const r = await run(['accounts', 'count', '--filter', 'lastname ~ "[[:alpha:]]"']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(all.stdout));
  });

  it.each([['"[[:digit:]]"'], ['"2\\% discount"'], ['"\\-"'], ['"a\\Z"']])(
    'description ~ %s: either it runs (exit 0) or svc refuses it before sending (exit 2); never sent and refused as invalid (exit 1)',
    async (pattern) => {
      const r = await run(['accounts', 'count', '--filter', `description ~ ${pattern}`]);
      const outcome = r.code === 0 ? 'ran' : r.code === 2 && sent().length === 0 ? 'refused before sending' : `exit ${r.code}: ${r.stderr.trim()}`;
      expect(['ran', 'refused before sending']).toContain(outcome);
    },
  );

  it('HELD: a backreference, which the sandbox cannot run, is refused with a 400 that says why', async () => {
    const r = await run(['accounts', 'count', '--filter', 'lastname ~ "(a)\\1"']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/backreferences, lookahead and lookbehind/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('--filter-json is checked against the catalogue too (NOTES: "a good client catches it before sending, naming the field")', () => {
  it.each([
    ['actionsteps', '{"visibility": 0}', 'visibility'],
    ['accounts', '{"tpye": 1}', 'tpye'],
    ['accounts', '{"0": ["OR", {"visibilty": 0}, {"ID": 1}]}', 'visibilty'],
  ])('%s --filter-json %s: exit 2 naming %s, nothing sent', async (family, json, field) => {
    const r = await run([family, 'count', '--filter-json', json]);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`'${field}'`));
    expect(sent()).toEqual([]);
  });
});

describe('paging through a filter the service accepts', () => {
  const deep = `${'not '.repeat(32)}ID > 1`;

  it('HELD: count and one query page take a filter 32 levels deep', async () => {
    const c = await run(['accounts', 'count', '--filter', deep]);
    expect(c.code, c.stderr).toBe(0);
    const q = await run(['accounts', 'query', '--fields', 'ID', '--filter', deep]);
    expect(q.code, q.stderr).toBe(0);
  });

  it.each([
    [['accounts', 'query', '--all', '--fields', 'ID', '-o', 'ndjson']],
    [['accounts', 'sum', 'ID']],
  ])('%j with the same filter succeeds too (svc wraps it one level deeper for paging, past the service limit)', async (argv) => {
    const c = JSON.parse((await run(['accounts', 'count', '--filter', deep])).stdout) as { count: number };
    const r = await run([...argv, '--filter', deep]);
    expect(r.code, r.stderr).toBe(0);
    const n = argv[1] === 'sum' ? (JSON.parse(r.stdout) as { count: number }).count : r.stdout.split('\n').filter(Boolean).length;
    expect(n).toBe(c.count);
  });
});

describe('option values', () => {
  it.each([
    ['--limit', ['accounts', 'query', '--limit', '']],
    ['--page-size', ['accounts', 'query', '--all', '--page-size', '']],
    ['--offset', ['accounts', 'query', '--offset', '']],
    ['--sort', ['accounts', 'query', '--sort', '']],
    ['--fields', ['accounts', 'query', '--fields', '']],
    ['--search', ['accounts', 'query', '--search', '']],
    ['--tz', ['accounts', 'query', '--tz', '']],
  ])('an empty %s (e.g. --limit "$N" with N unset) is exit 2 naming the option, not silently dropped', async (flag, argv) => {
    const r = await run([...argv, '--print-request']);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^svc: .*${flag}`));
  });

  it.each([['0'], ['-1'], ['2147483648'], ['abc'], ['1.5'], ['1e3'], ['0x10'], ['10001']])('HELD: --limit %s is exit 2 naming the range', async (v) => {
    const r = await run(['accounts', 'query', '--limit', v]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: --limit takes a whole number from 1 to 10000/);
    expect(sent()).toEqual([]);
  });

  it.each([
    [['accounts', 'query', '--limit', '1', '--fields', 'ID,lastmodified', '-o', 'table']],
    [['accounts', 'get', '1', '-o', 'table']],
    [['accounts', 'count']],
  ])('an unknown --tz is exit 2 naming it before anything is sent: %j', async (argv) => {
    const r = await run([...argv, '--tz', 'Nowhere/Nope']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^svc: unknown time zone 'Nowhere\/Nope' for --tz; use an IANA name/);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(sent()).toEqual([]);
  });

  it('--all --limit 5 is refused or honoured (at most 5 records), not silently ignored', async () => {
    const r = await run(['accounts', 'query', '--all', '--limit', '5', '--fields', 'ID', '-o', 'ndjson']);
    if (r.code === 2) return;
    expect(r.stdout.split('\n').filter(Boolean).length).toBeLessThanOrEqual(5);
  });

  it('--page-size without --all is refused (exit 2), not silently ignored', async () => {
    const r = await run(['accounts', 'query', '--page-size', '5', '--fields', 'ID', '-o', 'ndjson']);
    expect(r.code, `${r.stdout.split('\n').filter(Boolean).length} records`).toBe(2);
    expect(r.stderr).toMatch(/--page-size/);
  });

  it('get --if-none-match with a line break is exit 2 naming the option (an invalid value, nothing sent), not exit 1', async () => {
    const r = await run(['accounts', 'get', '1', '--if-none-match', '"a"\r\nX-Evil: 1']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--if-none-match/);
    expect(sent()).toEqual([]);
  });

  it('--all --distinct gives distinct records (or is refused), not every record', async () => {
    const one = await run(['accounts', 'query', '--distinct', '--fields', 'type', '-o', 'ndjson']);
    expect(one.code, one.stderr).toBe(0);
    const distinct = new Set(one.stdout.split('\n').filter(Boolean));
    const r = await run(['accounts', 'query', '--all', '--distinct', '--fields', 'type', '-o', 'ndjson']);
    if (r.code === 2) return; // refusing the pair, naming it, is a fix too
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(distinct.size);
  });

  it('--print-request with --all prints the first page request svc sends (sort +ID, the page size, ID > 0)', async () => {
    const r = await run(['accounts', 'query', '--all', '--page-size', '10', '--fields', 'lastname', '--print-request']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sort: ['+ID'], limit: 10 });
  });

  it('--delimiter with a line break: the refusal is one line on stderr', async () => {
    const r = await run(['accounts', 'query', '-o', 'csv', '--delimiter', '\n']);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('svc describe inventory: an unknown resource without a suggestion reads as one clean sentence (no "; (")', async () => {
    const r = await run(['describe', 'inventory']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: unknown resource 'inventory'/);
    expect(r.stderr).not.toMatch(/; \(/);
  });
});

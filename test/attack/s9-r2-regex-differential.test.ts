/**
 * s9-r2-regex: the sandbox's `~` against PostgreSQL's documented semantics.
 *
 * README, Local sandbox: "the query operation with every operator of the brief
 * (PostgreSQL semantics: `~` regular expressions …)"; Reliability: "RE2 takes
 * PostgreSQL's POSIX classes (`[[:alpha:]]`) and escaped punctuation …;
 * `src/sandbox/regex-dialect.ts` rewrites the rest of PostgreSQL's syntax for it
 * … Differences from PostgreSQL remain: no backreferences or lookaround (said in
 * the 400); RE2's `\s` is ASCII whitespace and its word boundaries see ASCII
 * letters and digits only; `\m` and `\M` match at either edge of a word."
 * Commit 76aa006: "the sandbox reads PostgreSQL's regular expressions as the
 * service does".
 *
 * Every expectation here was checked against PostgreSQL 15.18 (UTF-8 database,
 * `SELECT text ~ pattern`, `~*` for the case-insensitive ones); the seeded
 * grammar's tiny reference (below) agreed with PostgreSQL 15 on 60,000
 * pattern/text pairs (its first 300 patterns for seeds 1 to 10) before it was
 * written down here. The differences the
 * README names are left out.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../../src/util/random.js';
import { sandboxCli } from '../helpers/cli.js';

const SEED = Number(process.env.SVC_S9R2_SEED ?? 7);

const { sandbox, run } = sandboxCli({ seedAccounts: 20 });
const sentQueries = () => sandbox().sandbox.hooks.requests.filter((r) => /\/api\/v1\/opportunities/.test(r.url));

/** The texts every pattern is tried on (descriptions of opportunities named "S9R2D <index>"). */
const TEXTS = ['a', 'A', 'ab', 'a\nb', 'b\na', 'a\n\nb', 'a b', 'AB\nab', 'x.y', 'ba', '- a', '1a', 'aa\nx', '.\nA', 'xAx', 'a.b', 'B1', 'bb b', 'Müller', 'Ärger', 'ärger', '1+2*3', 'C:\\Users'];
const byId = new Map<number, number>();

const quoted = (pattern: string): string =>
  `"${pattern.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;

beforeAll(async () => {
  for (const [i, description] of TEXTS.entries()) {
    const r = await sandbox().call('PUT', 'api/v1/opportunities', { json: { name: `S9R2D ${i}`, description } });
    if (r.status !== 201) throw new Error(r.text);
    byId.set(r.json<{ ID: number }>().ID, i);
  }
  // The texts came back as written (leading blanks, lone line breaks and all).
  const back = await sandbox().call('POST', 'api/v1/opportunities', { json: { filter: { name: { '~~': 'S9R2D %' } }, fields: ['ID', 'description'], limit: 100 } });
  for (const row of back.json<{ ID: number; description: string }[]>()) expect(row.description).toBe(TEXTS[byId.get(row.ID) ?? -1]);
});

/** The texts the sandbox says the pattern matches (HTTP), or its error. */
async function matched(pattern: string, op = '~'): Promise<string[] | string> {
  const r = await sandbox().call('POST', 'api/v1/opportunities', {
    json: { filter: { name: { '~~': 'S9R2D %' }, description: { [op]: pattern } }, fields: ['ID'], limit: 100 },
  });
  if (r.status !== 200) return `${r.status}: ${r.text}`;
  return r
    .json<{ ID: number }[]>()
    .map((x) => TEXTS[byId.get(x.ID) ?? -1] as string)
    .sort();
}

/** The texts svc's query finds (exit 0), or what it said. */
async function queried(pattern: string, op = '~'): Promise<string[] | string> {
  const r = await run(['opportunities', 'query', '--all', '--fields', 'ID', '-o', 'json', '--filter', `name ~~ "S9R2D %" and description ${op} ${quoted(pattern)}`]);
  if (r.code !== 0) return `exit ${r.code}: ${r.stderr.trim()}`;
  return (JSON.parse(r.stdout) as { ID: number }[]).map((x) => TEXTS[byId.get(x.ID) ?? -1] as string).sort();
}

// ---------------------------------------------------------------------------------------------------------------
// The seeded grammar and its reference: PostgreSQL's `.`, `[^…]`, `^`, `$`, `\A`, `\Z`, the embedded options
// n m p w s i c x q, the directors ***: and ***=, and ~* — rewritten by hand into JavaScript (no `m` flag: `^`/`$`
// are rewritten as lookarounds when newline-sensitive anchoring is on; `.` is [\s\S] or [^\n]).
interface Mode {
  lineStop: boolean;
  lineAnchors: boolean;
  ci: boolean;
  expanded: boolean;
}
interface Generated {
  pattern: string;
  ci: boolean;
  negated: boolean;
  ref: RegExp;
}
const OPTIONS: [string, Partial<Mode>][] = [
  ['', {}],
  ['', {}],
  ['(?n)', { lineStop: true, lineAnchors: true }],
  ['(?m)', { lineStop: true, lineAnchors: true }],
  ['(?p)', { lineStop: true, lineAnchors: false }],
  ['(?w)', { lineStop: false, lineAnchors: true }],
  ['(?s)', {}],
  ['(?i)', { ci: true }],
  ['(?c)', { ci: false }],
  ['(?x)', { expanded: true }],
  ['(?nx)', { lineStop: true, lineAnchors: true, expanded: true }],
  ['(?ip)', { ci: true, lineStop: true }],
  ['(?wi)', { lineAnchors: true, ci: true }],
  ['***:', {}],
  ['***:(?w)', { lineAnchors: true }],
];
type Atom = { pg: string; js: (m: Mode) => string; anchor?: boolean };
const ATOMS: Atom[] = [
  ...['a', 'b', 'A', 'B', 'x', '1'].map((c) => ({ pg: c, js: () => c })),
  { pg: '\\n', js: () => '\\n' },
  { pg: '\\.', js: () => '\\.' },
  { pg: '[.]', js: () => '[.]' },
  { pg: '\\u0061', js: () => 'a' },
  { pg: '\\u0042', js: () => 'B' },
  { pg: '.', js: (m) => (m.lineStop ? '[^\\n]' : '[\\s\\S]') },
  { pg: '[ab]', js: () => '[ab]' },
  { pg: '[a-c]', js: () => '[a-c]' },
  { pg: '[^a]', js: (m) => (m.lineStop ? '[^a\\n]' : '[^a]') },
  { pg: '[^\\n]', js: () => '[^\\n]' },
  { pg: '[[:digit:]]', js: () => '[0-9]' },
  { pg: '[^[:digit:]]', js: (m) => (m.lineStop ? '[^0-9\\n]' : '[^0-9]') },
  { pg: '[[:space:]]', js: () => '\\s' },
  { pg: '\\d', js: () => '\\d' },
  { pg: '\\s', js: () => '\\s' },
  { pg: '\\S', js: () => '\\S' },
  { pg: '^', js: (m) => (m.lineAnchors ? '(?:^|(?<=\\n))' : '^'), anchor: true },
  { pg: '$', js: (m) => (m.lineAnchors ? '(?:$|(?=\\n))' : '$'), anchor: true },
  { pg: '\\A', js: () => '^', anchor: true },
  { pg: '\\Z', js: () => '$', anchor: true },
];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{0,1}', '{1,}', '*?', '+?', '??', '{1,2}'];

function sequence(r: Random, m: Mode, depth: number): [string, string] {
  let pg = '';
  let js = '';
  for (let i = r.int(1, 4); i > 0; i--) {
    const blank = m.expanded && r.chance(0.4) ? r.pick([' ', '  ', '\t', '\n']) : '';
    let p: string;
    let j: string;
    let anchor = false;
    if (depth < 2 && r.chance(0.2)) {
      const open = r.pick(['(', '(?:']);
      const [p1, j1] = sequence(r, m, depth + 1);
      if (r.chance(0.35)) {
        const [p2, j2] = sequence(r, m, depth + 1);
        [p, j] = [`${open}${p1}|${p2})`, `(?:${j1}|${j2})`];
      } else [p, j] = [`${open}${p1})`, `(?:${j1})`];
    } else {
      const a = r.pick(ATOMS);
      [p, j, anchor] = [a.pg, a.js(m), a.anchor === true];
    }
    const q = anchor ? '' : r.pick(QUANTIFIERS);
    pg += blank + p + (m.expanded && q && r.chance(0.3) ? ' ' : '') + q;
    js += j + q;
  }
  return [pg, js];
}

function generate(r: Random): Generated {
  const ci = r.chance(0.3);
  const negated = r.chance(0.2);
  if (r.chance(0.08)) {
    const text = r.pick(['a.b', '(a', 'A*', '[x]', 'C:\\U', '***=', '$^', 'x.y']);
    const ref = new RegExp(text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'), ci ? 'i' : '');
    return { pattern: r.chance(0.5) ? `***=${text}` : `(?q)${text}`, ci, negated, ref };
  }
  const [prefix, over] = r.pick(OPTIONS);
  const m: Mode = { lineStop: false, lineAnchors: false, ci, expanded: false, ...over };
  const [pg, js] = sequence(r, m, 0);
  const comment = m.expanded && r.chance(0.3) ? ' # a comment (not [closed\n' : '';
  return { pattern: prefix + pg + comment, ci, negated, ref: new RegExp(js, m.ci ? 'i' : '') };
}

describe(`HELD: seeded patterns against PostgreSQL's documented semantics (seed ${SEED}; replay with SVC_S9R2_SEED=<n>)`, () => {
  it('the sandbox matches what the reference matches: . and [^…] across line breaks, ^ $ \\A \\Z, options n m p w s i c x q, ***: ***=, ~ ~* !~ !~*', async () => {
    const r = createRandom(SEED);
    const problems: string[] = [];
    for (let i = 0; i < 300 && problems.length < 5; i++) {
      const g = generate(r);
      const op = `${g.negated ? '!' : ''}~${g.ci ? '*' : ''}`;
      const want = TEXTS.filter((t) => !/[^\x00-\x7f]/.test(t) && g.ref.test(t) !== g.negated).sort();
      const gotAll = await matched(g.pattern, op);
      const got = typeof gotAll === 'string' ? gotAll : gotAll.filter((t) => !/[^\x00-\x7f]/.test(t));
      if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`description ${op} ${JSON.stringify(g.pattern)}: sandbox ${JSON.stringify(got)}, PostgreSQL ${JSON.stringify(want)}`);
      else if (i % 15 === 0) {
        // The same through svc: its check sends the pattern, and query returns the same rows.
        const viaSvc = await queried(g.pattern, op);
        const ascii = typeof viaSvc === 'string' ? viaSvc : viaSvc.filter((t) => !/[^\x00-\x7f]/.test(t));
        if (JSON.stringify(ascii) !== JSON.stringify(want)) problems.push(`svc query --filter 'description ${op} ${quoted(g.pattern)}': ${JSON.stringify(ascii)}, PostgreSQL ${JSON.stringify(want)}`);
      }
    }
    expect(problems, `seed ${SEED}\n${problems.join('\n')}`).toEqual([]);
  }, 60_000);
});

describe('newline-sensitive matching and \\D \\W (PostgreSQL 15: "a\\nb" ~ "(?n)a\\Db" is true; only . and bracket expressions with ^ stop at a line break)', () => {
  it.each([
    ['(?n)a\\Db', ['a\nb', 'a b', 'a.b']],
    ['(?n)a\\Wb', ['a\nb', 'a b', 'a.b']],
    ['(?p)a\\Db', ['a\nb', 'a b', 'a.b']],
  ])('description ~ %j matches %j (PostgreSQL 15), the line break included', async (pattern, want) => {
    expect(await matched(pattern)).toEqual(want.sort());
  });

  it('HELD: (?n)a[^[:digit:]]b does not match "a\\nb" (a bracket expression with ^), as PostgreSQL', async () => {
    expect(await matched('(?n)a[^[:digit:]]b')).toEqual(['a b', 'a.b']);
  });
});

describe('POSIX classes and \\w on letters outside ASCII (PostgreSQL, UTF-8 database: [[:alpha:]] and \\w take ü, Ä, é)', () => {
  // The README names RE2's \s and word boundaries as ASCII-only; it says RE2 "takes PostgreSQL's POSIX classes".
  it.each([
    ['^[[:alpha:]]+$', ['Müller', 'a', 'A', 'ab', 'ba', 'xAx', 'Ärger', 'ärger'].sort()],
    ['^\\w+$', ['Müller', 'a', 'A', 'ab', 'ba', 'xAx', '1a', 'B1', 'Ärger', 'ärger'].sort()],
    ['^[[:upper:]]', ['A', 'AB\nab', 'B1', 'C:\\Users', 'Müller', 'Ärger'].sort()],
    ['^[[:lower:]]+$', ['a', 'ab', 'ba', 'ärger'].sort()],
  ])('svc query --filter \'description ~ "%s"\' finds %j', async (pattern, want) => {
    expect(await queried(pattern)).toEqual(want);
  });
});

describe('bounds {m,n} (PostgreSQL: at most 255, digits only; "{" followed by a digit opens a bound)', () => {
  it.each([
    ['^a{00001}$', ['a']],
    ['^a{0,01}$', ['a']],
  ])('description ~ %j matches %j (a bound with leading zeros is a bound, not literal text)', async (pattern, want) => {
    expect(await matched(pattern)).toEqual(want);
  });

  it.each([['a{256}'], ['a{1000,}'], ['a{1,256}'], ['a{1'], ['{1'], ['a{1x}'], ['a{1,2,3}'], ['a{1 }']])(
    'description ~ %j is refused by the sandbox (400, as PostgreSQL: "invalid repetition count(s)" or "braces {} not balanced")',
    async (pattern) => {
      const got = await matched(pattern);
      expect(typeof got === 'string' ? got.slice(0, 3) : `200: ${JSON.stringify(got)}`).toBe('400');
    },
  );

  it.each([['a{256}'], ['a{1000,}'], ['a{1'], ['a{1x}']])('svc count --filter \'description ~ "%s"\' is exit 2, nothing sent (the service refuses it)', async (pattern) => {
    sandbox().sandbox.hooks.requests.length = 0;
    const r = await run(['opportunities', 'count', '--filter', `description ~ ${quoted(pattern)}`]);
    expect({ code: r.code, sent: sentQueries().length }, r.stdout + r.stderr).toEqual({ code: 2, sent: 0 });
  });

  it('HELD: a{255} and a{0,255} are taken, as PostgreSQL takes them', async () => {
    expect(await matched('a{255}')).toEqual([]);
    expect(await matched('^a{0,255}$')).toContain('a');
  });
});

describe("RE2's own syntax, which PostgreSQL refuses, is run by the sandbox (and sent by svc)", () => {
  it.each([
    ['\\z', 'invalid escape \\ sequence'],
    ['a\\z', 'invalid escape \\ sequence'],
    ['\\Qa.b\\E', 'invalid escape \\ sequence'],
    ['\\pL', 'invalid escape \\ sequence'],
    ['\\p{Lu}', 'invalid escape \\ sequence'],
    ['\\C', 'invalid escape \\ sequence'],
    ['\\y*a', 'quantifier operand invalid'],
    ['\\A*a', 'quantifier operand invalid'],
    ['a\\Z?', 'quantifier operand invalid'],
    ['[[:<:]]*a', 'quantifier operand invalid'],
    ['^*a', 'quantifier operand invalid'],
    ['a$+', 'quantifier operand invalid'],
    ['[[:alpha:]-z]', 'invalid character range'],
    ['[\\d-z]', 'invalid character range'],
    ['[a-z-0]', 'invalid character range'],
    // Expanded mode: PostgreSQL keeps tokens a blank separates apart; the translator drops the blank and joins them.
    ['(?x)a * ?', 'quantifier operand invalid (RE2 reads the lazy a*?)'],
    ['(?x)( ?:a)', 'quantifier operand invalid (RE2 reads the group (?:a))'],
  ])('description ~ %j is a 400 from the sandbox (PostgreSQL: %s)', async (pattern) => {
    const got = await matched(pattern);
    expect(typeof got === 'string' ? got.slice(0, 3) : `200: ${JSON.stringify(got)}`).toBe('400');
  });

  it.each([['\\z'], ['\\Qa.b\\E'], ['\\p{Lu}'], ['\\y*a'], ['[[:alpha:]-z]'], ['[a-z-0]']])(
    'svc count --filter \'description ~ "%s"\' is exit 2 with nothing sent',
    async (pattern) => {
      sandbox().sandbox.hooks.requests.length = 0;
      const r = await run(['opportunities', 'count', '--filter', `description ~ ${quoted(pattern)}`]);
      expect({ code: r.code, sent: sentQueries().length }, r.stdout + r.stderr).toEqual({ code: 2, sent: 0 });
    },
  );
});

describe('what PostgreSQL runs and the sandbox refuses as unsupported', () => {
  it.each([
    ['\\10', 'an octal escape (backspace): PostgreSQL reads \\10 as a backreference only after ten groups'],
    ['[[.space.]]', 'a named collating element, one character'],
    ['[[.hyphen.]]', 'the same'],
  ])('description ~ %j (%s) is run, not refused', async (pattern) => {
    const got = await matched(pattern);
    expect(typeof got === 'string' ? got : 'ran').toBe('ran');
  });
});

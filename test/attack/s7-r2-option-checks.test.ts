/**
 * s7-r2: the option checks of 2921e6e (option-values.ts: no empty value; tz-flag.ts; filter-json.ts:
 * field keys checked against the catalogue; the record-ID check; --fields aliases). Legitimate inputs must still
 * pass, and help and completion still work. Against this file's own sandbox, in-process.
 *
 * FINDING tests fail on HEAD and pass once fixed; HELD tests pass now.
 */
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';

const { run } = sandboxCli();

describe('HELD: legitimate filters given as JSON pass the new key check', () => {
  it.each([
    ['extdata path, mixed case name', '{"extdata.MyField": "x"}'],
    ['extdata path with operators object', '{"extdata.score": {">=": 3, "<": 10}}'],
    ['first-degree path', '{"contact.city": "Berlin"}'],
    ['operators object', '{"lastname": {"~*": "^a", "!=": ""}}'],
    ['composite under a numeric key', '{"0": ["OR", {"contact.city": "Berlin"}, {"extdata.x": {"IN": [1, 2]}}]}'],
    ['composite as a numeric-keyed object', '{"0": "OR", "1": {"lastname": "x"}, "2": {"type": 1}}'],
    ['composite at the top', '["NOT", {"locked": 1}]'],
    ['nested composites', '["AND", ["OR", {"type": 1}, {"type": 2}], {"0": ["NOT", {"currency": "EUR"}]}]'],
  ])('%s: %s', async (_label, json) => {
    const r = await run(['accounts', 'count', '--filter-json', json]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('--filter-file - with extdata and contact.city', async () => {
    const r = await run(['accounts', 'count', '--filter-file', '-'], { stdin: ['{"contact.city": {"IN": ["Berlin", "Wien"]}, "extdata.a_b": null}'] });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('a misspelt key is exit 2 with a suggestion, nothing sent', async () => {
    const r = await run(['accounts', 'count', '--filter-json', '{"lastnme": "x"}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/did you mean 'lastname'/);
  });
});

describe('HELD: legitimate option values pass', () => {
  it.each([['UTC'], ['Etc/GMT+5'], ['America/Argentina/Buenos_Aires'], ['utc']])('--tz %s for query, count, get and export', async (tz) => {
    expect((await run(['accounts', 'query', '--limit', '1', '--tz', tz, '--filter', 'lastmodified < today'])).code).toBe(0);
    expect((await run(['accounts', 'count', '--tz', tz, '--filter', 'creationdate >= 2000-01-01'])).code).toBe(0);
    expect((await run(['accounts', 'get', '1', '--tz', tz])).code).toBe(0);
    expect((await run(['accounts', 'export', '--format', 'ndjson', '--tz', tz, '--filter', 'ID < 3'])).code).toBe(0);
  });

  it('--search with spaces and quotes', async () => {
    const r = await run(['accounts', 'query', '--search', "O'Brien & Söhne GmbH", '--limit', '1']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('--fields aliases and paths, the same path under two names, the same item twice', async () => {
    const r = await run(['accounts', 'query', '--fields', 'ID,name=lastname,city=contact.city,surname=lastname,ID', '--limit', '1', '--sort', '+ID', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys((JSON.parse(r.stdout) as Record<string, unknown>[])[0] ?? {})).toEqual(['ID', 'name', 'city', 'surname']);
  });

  it('--fields without a value lists the fields', async () => {
    const r = await run(['accounts', 'query', '--fields']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/lastname/);
  });

  it('help and completion of the record verbs', async () => {
    const h = await run(['accounts', 'query', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/--page-size/);
    const c = await run(['completion', 'bash']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.length).toBeGreaterThan(100);
  });

  it('an empty value is exit 2 naming the option, for a verb option and --tz', async () => {
    for (const argv of [['accounts', 'query', '--limit', ''], ['accounts', 'query', '--tz', ''], ['accounts', 'query', '--sort', '']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--(limit|tz|sort) is given an empty value/);
    }
  });
});

/**
 * The record verbs' option values are checked before anything is sent, each
 * refusal one line naming the option and the fix (exit 2): an empty value,
 * an unknown --tz, a JSON filter's unknown field, an ID past 2^53 − 1, an
 * --if-none-match no header can carry, a --delimiter with a line break, and
 * an unknown resource of svc describe without a suggestion.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFamily } from '../../src/catalogue/index.js';
import { checkFilterJson } from '../../src/commands/records/filter-json.js';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();
const sent = () => sandbox().sandbox.hooks.requests;

/** The one line of stderr of a refused command line, having checked exit 2, no stdout and nothing sent. */
async function refusal(argv: string[]): Promise<string> {
  const r = await run(argv);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(sent()).toEqual([]);
  return r.stderr.trimEnd();
}

describe('an empty option value is refused naming the option, never read as if the option were absent', () => {
  it.each([
    [['accounts', 'query', '--limit', ''], '--limit'],
    [['accounts', 'query', '--fields', ''], '--fields'],
    [['accounts', 'count', '--search', ''], '--search'],
    [['accounts', 'count', '--filter-json', ''], '--filter-json'],
    [['accounts', 'sum', 'ID', '--by', ''], '--by'],
    [['accounts', 'get', '1', '--expand', ''], '--expand'],
    [['accounts', 'update', '1', 'lastname=x', '--if-match', ''], '--if-match'],
    [['accounts', 'export', '--format', ''], '--format'],
  ])('%j', async (argv, flag) => {
    expect(await refusal(argv)).toBe(`svc: ${flag} is given an empty value (an unset variable?); give it a value or leave ${flag} out`);
  });

  it('an empty --filter keeps the filter language\'s own message, with its caret', async () => {
    const r = await run(['accounts', 'count', '--filter', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: the filter is empty; .*\n *\^/);
  });
});

describe('--tz is checked once, by every verb that takes it, before anything is sent', () => {
  it.each([
    [['accounts', 'query']],
    [['accounts', 'count']],
    [['accounts', 'sum', 'ID']],
    [['accounts', 'get', '1']],
    [['accounts', 'update', '1', 'lastname=x']],
    [['accounts', 'update', '--filter', 'ID = 1', 'lastname=x', '--yes']],
    [['accounts', 'export', '--format', 'csv']],
    [['accounts', 'import', '--from', 'rows.csv']],
    [['accounts', 'watch', '--once']],
  ])('%j --tz Nowhere/Nope', async (argv) => {
    expect(await refusal([...argv, '--tz', 'Nowhere/Nope'])).toBe("svc: unknown time zone 'Nowhere/Nope' for --tz; use an IANA name such as Europe/Berlin or UTC");
  });

  it('a zone holding control characters is shown escaped', async () => {
    expect(await refusal(['accounts', 'count', '--tz', 'Euro\u001b[2Jpe\n'])).toBe("svc: unknown time zone 'Euro\\u001b[2Jpe\\n' for --tz; use an IANA name such as Europe/Berlin or UTC");
  });

  it('a known zone still works', async () => {
    const r = await run(['accounts', 'get', '1', '-o', 'table', '--tz', 'Europe/Berlin']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('--filter-json and --filter-file: field keys checked against the catalogue as --filter checks field names', () => {
  it.each([
    ['accounts', '{"tpye": 1}', "unknown field 'tpye' on accounts; did you mean 'type'?"],
    ['actionsteps', '{"visibility": 0}', "unknown field 'visibility' on actionsteps"],
    ['accounts', '{"TYPE": 1}', "unknown field 'TYPE' on accounts; did you mean 'type'?"],
    ['accounts', '{"contact.cty": "Köln"}', "unknown field 'cty' on contacts (in 'contact.cty'); did you mean 'city'?"],
    ['accounts', '{"EXTDATA.n": 1}', "unknown field 'EXTDATA.n' on accounts; did you mean 'extdata.n'?"],
    ['accounts', '["OR", {"ID": 1}, ["NOT", {"lastnme": "x"}]]', "unknown field 'lastnme' on accounts; did you mean 'lastname'?"],
    ['accounts', '{"0": {"0": "NOT", "1": {"curency": "EUR"}}}', "unknown field 'curency' on accounts; did you mean 'currency'?"],
  ])('%s %s', async (family, json, message) => {
    expect(await refusal([family, 'count', '--filter-json', json])).toMatch(new RegExp(`^svc: --filter-json: ${message.replace(/[.?()[\]]/g, '\\$&')}`));
  });

  it('a --filter-file is checked the same way', async () => {
    const file = join(tmpdir(), `svc-filter-${process.pid}.json`);
    writeFileSync(file, '{"tpye": 1}');
    expect(await refusal(['accounts', 'count', '--filter-file', file])).toBe(`svc: --filter-file ${file}: unknown field 'tpye' on accounts; did you mean 'type'?`);
  });

  it('a filter nested 100,000 levels deep is walked without recursion (the service judges its depth)', () => {
    let deep: unknown = { tpye: 1 };
    for (let i = 0; i < 100_000; i++) deep = ['NOT', deep];
    const accounts = findFamily('accounts');
    if (!accounts) throw new Error('no accounts');
    expect(() => checkFilterJson(accounts, deep, '--filter-json')).toThrow("--filter-json: unknown field 'tpye' on accounts; did you mean 'type'?");
  });

  it.each([
    ['{"type": 1, "lastname": {"~~": "%", "!=": ""}, "ID": {">": 0, "IN": [1, 2, 3]}}'],
    ['{"0": ["OR", {"type": 1}, {"contact.city": "Köln"}], "1": ["NOT", {"ID": 2}]}'],
    ['["OR", {"type": 0}, ["AND", {"ID": {">": 1}}, {"locked": 0}]]'],
    ['{"0": {"0": "NOT", "1": {"currency": "EUR"}}}'],
    ['{"extdata.n": 1}'],
    ['{}'],
  ])('a valid filter passes and the sandbox takes it: %s', async (json) => {
    const r = await run(['accounts', 'count', '--filter-json', json]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ count: expect.any(Number) });
  });
});

describe('other values', () => {
  it.each([['get'], ['exists']])('%s 9007199254740993 (past 2^53 − 1)', async (verb) => {
    expect(await refusal(['accounts', verb, '9007199254740993'])).toBe("svc: invalid record ID '9007199254740993'; IDs are positive whole numbers up to 9007199254740991");
  });

  it('get 9007199254740991 is sent (exit 3: no such record)', async () => {
    expect((await run(['accounts', 'get', '9007199254740991'])).code).toBe(3);
  });

  it('get --if-none-match with a line break', async () => {
    expect(await refusal(['accounts', 'get', '1', '--if-none-match', '"a"\r\nX-Evil: 1'])).toBe(
      'svc: --if-none-match takes an ETag as get --verbose shows it (printable ASCII, e.g. \'"abc"\'), not "\\"a\\"\\r\\nX-Evil: 1"',
    );
  });

  it.each([['update', ['lastname=x']], ['delete', ['--yes']]])('%s: an ID past 2^53 − 1 and an --if-match with a line break are refused before anything is sent', async (verb, rest) => {
    expect(await refusal(['accounts', verb, '9007199254740993', ...rest])).toBe("svc: invalid ID '9007199254740993' for accounts; IDs are whole numbers up to 9007199254740991");
    expect(await refusal(['accounts', verb, '1', ...rest, '--if-match', '"a"\r\nX-Evil: 1'])).toBe(
      'svc: --if-match takes an ETag as get --verbose shows it (printable ASCII, e.g. \'"abc"\'), not "\\"a\\"\\r\\nX-Evil: 1"',
    );
  });

  it('--delimiter with a line break is one line, the value JSON-escaped', async () => {
    expect(await refusal(['accounts', 'query', '-o', 'csv', '--delimiter', '\n'])).toBe('svc: --delimiter takes one character other than a quote or line break, not "\\n"');
  });

  it('describe: an unknown resource or field without a suggestion reads as one sentence', async () => {
    expect(await refusal(['describe', 'inventory'])).toBe("svc: unknown resource 'inventory' (run 'svc resources' for the list)");
    expect(await refusal(['describe', 'accounts.xyzzyq'])).toBe("svc: unknown field 'xyzzyq' on accounts (run 'svc describe accounts')");
    expect(await refusal(['describe', 'acounts'])).toBe("svc: unknown resource 'acounts'; did you mean 'accounts'? (run 'svc resources' for the list)");
  });
});

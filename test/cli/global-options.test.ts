/**
 * The global options where they may be given (before the command word, between a family and its verb, after
 * the verb), never taken out of another option's value; an option given twice; empty globals; --retries;
 * an unknown option's message (where it belongs, what was meant); a control character as --delimiter.
 */
import { describe, expect, it } from 'vitest';
import { sandboxCli, type CliRun } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();
const sent = (): string[] => sandbox().sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`);

function refused(r: CliRun): string {
  expect({ code: r.code, stdout: r.stdout, lines: r.stderr.replace(/\n$/, '').split('\n').length }, r.stderr).toEqual({ code: 2, stdout: '', lines: 1 });
  return r.stderr;
}

describe('global options at every level', () => {
  it.each([
    [['-o', 'csv', 'accounts', 'count']],
    [['accounts', 'count', '-o', 'csv']],
    [['accounts', '-o', 'csv', 'count']],
    [['accounts', 'count', '--output=csv']],
    [['--output=csv', 'accounts', 'count']],
    [['accounts', 'count', '-vo', 'csv']],
    [['-vo', 'csv', 'accounts', 'count']],
    [['-o', 'csv', 'accounts', 'count', '-o', 'csv']],
  ])('svc %j prints csv', async (argv) => {
    const r = await run(argv);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^field,value\ncount,\d+\n$/);
  });

  it('--no-header before the command word holds after it (a later level leaves it alone)', async () => {
    const r = await run(['--no-header', 'accounts', 'count', '-o', 'csv']);
    expect(r.stdout).toMatch(/^count,\d+\n$/);
  });

  it('a word that is the value of a verb option is never a global option: --search -v --print-request sends nothing', async () => {
    const r = await run(['accounts', 'query', '--search', '-v', '--print-request']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ query: '-v' });
    expect(sent()).toEqual([]);
  });

  it('update 1 x=y --if-match -v --dry-run sends no PATCH', async () => {
    const r = await run(['accounts', 'update', '1', 'firstname=S10', '--if-match', '-v', '--dry-run']);
    expect(sent().filter((q) => !q.startsWith('GET '))).toEqual([]);
    expect(r.stderr).not.toMatch(/^PATCH /m);
  });

  it('a global given at two levels with different values is refused as -o twice is', async () => {
    expect(refused(await run(['-o', 'json', 'accounts', 'count', '-o', 'csv']))).toMatch(/^svc: -o\/--output given twice \('json' and 'csv'\)/);
    expect(refused(await run(['--timeout', '5s', 'accounts', '--timeout', '6s', 'count']))).toBe("svc: --timeout given twice ('5s' and '6s'); give it once\n");
    expect(sent()).toEqual([]);
  });

  it('-V after a command word still prints the version', async () => {
    const r = await run(['accounts', 'query', '-V']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\S+\n$/);
  });
});

describe('an option that is not repeatable, given twice', () => {
  it.each([
    [['accounts', 'count', '--search', 'a', '--search', 'b'], "svc: --search given twice ('a' and 'b'); give it once\n"],
    [['accounts', 'query', '--limit', '1', '--limit', '2'], "svc: --limit given twice ('1' and '2'); give it once\n"],
    [['accounts', 'count', '--timeout', '5s', '--timeout', '6s'], "svc: --timeout given twice ('5s' and '6s'); give it once\n"],
  ])('svc %j is exit 2 naming it', async (argv, message) => {
    expect(refused(await run(argv))).toBe(message);
    expect(sent()).toEqual([]);
  });

  it('the same value twice, and a repeatable option twice, are taken', async () => {
    expect((await run(['accounts', 'count', '--search', 'a', '--search', 'a'])).code).toBe(0);
    expect((await run(['accounts', 'count', '--filter', 'ID > 1', '--filter', 'ID < 5'])).code).toBe(0);
  });
});

describe('global options: empty, blank and odd values', () => {
  it.each([['--timeout'], ['--retries'], ['--token-file'], ['--ca-file']])('%s "" is exit 2 naming it', async (flag) => {
    expect(refused(await run(['accounts', 'count', flag, '']))).toMatch(new RegExp(`^svc: ${flag} is given an empty value \\(an unset variable\\?\\); give .*, or leave ${flag} out\\n$`));
    expect(refused(await run([flag, '  ', 'accounts', 'count']))).toMatch(new RegExp(`^svc: ${flag} is given a blank value`));
    expect(sent()).toEqual([]);
  });

  it.each([['--url'], ['--profile']])('%s "" is exit 2 naming it, nothing sent', async (flag) => {
    expect(refused(await run(['accounts', 'count', flag, '']))).toMatch(new RegExp(`^svc: ${flag} is given an empty value \\(an unset variable\\?\\); give .*, or leave ${flag} out\\n$`));
    expect(sent()).toEqual([]);
  });

  it.each([['0x10'], ['-0'], ['1e1'], ['0b11'], ['21'], ['1.0'], [' 1']])('--retries %j is exit 2', async (v) => {
    expect(refused(await run(['accounts', 'count', `--retries=${v}`]))).toBe(`svc: invalid --retries '${v}'; use a whole number from 0 to 20\n`);
  });

  it('--retries 0 and 20 are taken', async () => {
    expect((await run(['accounts', 'count', '--retries', '0'])).code).toBe(0);
    expect((await run(['accounts', 'count', '--retries', '20'])).code).toBe(0);
  });

  it('--timeout abc is refused as it is parsed, before the command runs', async () => {
    expect(refused(await run(['--timeout', 'abc', 'accounts', 'count']))).toMatch(/^svc: invalid --timeout 'abc'/);
    expect(sent()).toEqual([]);
  });
});

describe('an unknown option: where it belongs, what was meant', () => {
  it.each([
    [['--limit', '5', 'accounts', 'query'], "svc: unknown option '--limit' here: it is an option of 'svc accounts query'; put it after the verb (run 'svc accounts query --help')\n"],
    [['accounts', '--limit', '5', 'query'], "svc: unknown option '--limit' here: it is an option of 'svc accounts query'; put it after the verb (run 'svc accounts query --help')\n"],
    [['--filter=ID = 1', 'accounts', 'count'], "svc: unknown option '--filter' here: it is an option of 'svc accounts count'; put it after the verb (run 'svc accounts count --help')\n"],
    [['accounts', 'query', '--format', 'csv'], "svc: unknown option '--format'; did you mean '-o'? (run 'svc accounts query --help')\n"],
    [['accounts', 'query', '--csv'], "svc: unknown option '--csv'; did you mean '-o csv'? (run 'svc accounts query --help')\n"],
    [['accounts', 'import', '--file', 'rows.csv'], "svc: unknown option '--file'; did you mean '--from'? (run 'svc accounts import --help')\n"],
    [['accounts', 'import', '--input', 'rows.csv'], "svc: unknown option '--input'; did you mean '--from'? (run 'svc accounts import --help')\n"],
    [['accounts', 'export', '--sort', 'ID'], "svc: unknown option '--sort' (run 'svc accounts export --help')\n"],
    [['accounts', 'query', '--LIMIT', '5'], "svc: unknown option '--LIMIT'; did you mean '--limit'? (run 'svc accounts query --help')\n"],
    [['accounts', 'query', '-limit', '5'], "svc: unknown option '-limit'; did you mean '--limit'? (run 'svc accounts query --help')\n"],
    [['accounts', 'query', '--verbos'], "svc: unknown option '--verbos'; did you mean '--verbose'? (run 'svc accounts query --help')\n"],
    [['resources', '--outptu', 'json'], "svc: unknown option '--outptu'; did you mean '--output'? (run 'svc resources --help')\n"],
  ])('svc %j', async (argv, message) => {
    expect(refused(await run(argv))).toBe(message);
  });

  it('an option of several verbs, the verb not given, names some of them', async () => {
    expect(refused(await run(['accounts', '--limit', '5']))).toMatch(/^svc: unknown option '--limit' here: it is an option of 'svc accounts query'/);
  });
});

describe('--delimiter', () => {
  it.each([['\u001b'], ['\u0000'], ['\u007f'], ['\u0085']])('a control character (%j) is exit 2, nothing sent', async (d) => {
    expect(refused(await run(['accounts', 'query', '-o', 'csv', '--fields', 'ID', '--limit', '1', '--delimiter', d]))).toMatch(/^svc: --delimiter takes a printable character or a tab/);
    expect(sent()).toEqual([]);
  });

  it('a tab and a semicolon are taken', async () => {
    expect((await run(['accounts', 'query', '-o', 'csv', '--fields', 'ID,lastname', '--limit', '1', '--delimiter', '\t'])).stdout).toMatch(/^ID\tlastname\n/);
    expect((await run(['accounts', 'query', '-o', 'csv', '--fields', 'ID,lastname', '--limit', '1', '--delimiter', ';'])).stdout).toMatch(/^ID;lastname\n/);
  });
});

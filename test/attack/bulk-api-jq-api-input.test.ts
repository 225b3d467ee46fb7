/**
 * Attack round on `svc api --input`: a body nested 100,000 levels deep, as a
 * plain request and as a --paginate query (its filter walked by the pager),
 * and as --jq input: each ends promptly with a documented exit code and one
 * line on stderr, never a crash or a stack trace.
 */
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { rowsFile } from '../commands/records/import-support.js';

const { run } = sandboxCli();
const DEEP = 100_000;

describe('svc api: a deeply nested --input', () => {
  it.each([
    ['a plain POST', (f: string) => ['api', 'accounts', '--input', f], `{"filters":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`],
    ['a --paginate query', (f: string) => ['api', 'accounts', '--input', f, '--paginate'], `{"filters":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}`],
    ['a --paginate query, nested in an array filter', (f: string) => ['api', 'accounts', '--input', f, '--paginate'], `{"filter":${'["NOT",'.repeat(DEEP)}{}${']'.repeat(DEEP)}}`],
  ])('%s: a documented exit code, one line on stderr, no stack trace', async (_name, argv, body) => {
    const r = await run(argv(rowsFile('deep.json', body)));
    expect([1, 2]).toContain(r.code);
    expect(r.stderr, r.stderr.slice(0, 400)).toMatch(/^svc: [^\n]*\n$/);
    expect(r.stderr).not.toMatch(/RangeError|Maximum call stack|at .*\.js:\d+/);
  });
});

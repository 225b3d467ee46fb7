/**
 * Option values refused before anything is sent (exit 2, one line naming the option and the fix), and
 * --filter-file repeatable (ANDed, as --filter and --filter-json): blank lists, paths to nothing, fields the
 * service cannot sort on, blank and oversized ETags, `-` where a file is needed, prototype words.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, type CliRun } from '../../helpers/cli.js';
import { tempDir } from '../../sync/support.js';

const { sandbox, run } = sandboxCli();
const sent = (): string[] => sandbox().sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`);

/** Exit 2, nothing on stdout, nothing sent, one line on stderr (returned without its "svc: "). */
function refused(r: CliRun): string {
  expect({ code: r.code, stdout: r.stdout, sent: sent() }, r.stderr).toEqual({ code: 2, stdout: '', sent: [] });
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return (lines[0] ?? '').replace(/^svc: /, '');
}

describe('--filter-file is repeatable, ANDed; standard input once', () => {
  it('two files are ANDed with each other (and with --filter-json), in the body sent', async () => {
    const dir = tempDir();
    const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
    writeFileSync(a, '{"ID": 1}');
    writeFileSync(b, '{"type": 1}');
    const r = await run(['accounts', 'count', '--filter-file', a, '--filter-file', b, '--explain']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse((await run(['accounts', 'count', '--filter-json', '{"ID": 1}', '--filter-json', '{"type": 1}', '--explain'])).stdout));
  });

  it('a bad second file is named in the message', async () => {
    const dir = tempDir();
    const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
    writeFileSync(a, '{"ID": 1}');
    writeFileSync(b, '{"nosuchfield": 1}');
    expect(refused(await run(['accounts', 'count', '--filter-file', a, '--filter-file', b]))).toContain(`--filter-file ${b}`);
  });

  it('delete --filter-file A --filter-file B --dry-run shows the ANDed filter', async () => {
    const dir = tempDir();
    const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
    writeFileSync(a, '{"ID": 1}');
    writeFileSync(b, '{"type": 1}');
    const r = await run(['accounts', 'delete', '--filter-file', a, '--filter-file', b, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent().filter((q) => !q.startsWith('POST ') && !q.startsWith('GET '))).toEqual([]);
  });

  it.each([[['accounts', 'count']], [['accounts', 'delete', '--yes']], [['accounts', 'watch', '--once']]])('%j --filter-file - --filter-file - is refused', async (argv) => {
    expect(refused(await run([...argv, '--filter-file', '-', '--filter-file', '-']))).toBe(
      '--filter-file - is given twice, and standard input can be read only once; put all but one of those filters in files',
    );
  });
});

describe('blank and comma-only lists are refused naming the option', () => {
  it.each([
    [['accounts', 'query', '--sort', '   '], '--sort needs at least one field, e.g. --sort -lastmodified (- descending, + or nothing ascending)'],
    [['accounts', 'query', '--sort', ',,'], '--sort needs at least one field, e.g. --sort -lastmodified (- descending, + or nothing ascending)'],
    [['accounts', 'query', '--expand', ' '], '--expand needs at least one field, and accounts has none that expands: leave --expand out'],
    [['contacts', 'get', '1', '--expand', ','], '--expand needs at least one field, e.g. --expand '],
    [['accounts', 'get', '1', '--if-none-match', '   '], '--if-none-match is given a blank value; give the ETag the record was read with (get --verbose shows it), or leave --if-none-match out'],
    [['accounts', 'sync', '--into', '@TMP/copy.sqlite', '--fields', ' , '], '--fields needs at least one field, e.g. --fields ID,lastname,lastmodified (leave --fields out for every field)'],
    [['api', '   '], "svc api's PATH is blank; give a path such as accounts or accounts/1 (svc api [METHOD] PATH)"],
  ])('%j', async (argv, message) => {
    const d = tempDir();
    expect(refused(await run(argv.map((a) => a.replace('@TMP', d))))).toContain(message);
    expect(existsSync(join(d, 'copy.sqlite'))).toBe(false);
  });
});

describe('--sort and --fields: what cannot be sorted, and paths to nothing', () => {
  it.each([
    [['transactions', 'query', '--sort', '-items'], "--sort items: the field is a composite (items) field and cannot be sorted on; sort by a plain field (see 'svc describe transactions')"],
    [['stocktransactions', 'query', '--sort', 'serials'], '--sort serials: the field is a composite (array) field and cannot be sorted on'],
    [['accounts', 'query', '--sort', 'contact.'], "'contact.' ends with a dot and names no field after it: give reference.field (e.g. contact.city) or extdata.NAME"],
    [['accounts', 'query', '--sort', 'contact.nosuch'], "unknown field 'nosuch' on contacts in 'contact.nosuch'"],
    [['accounts', 'query', '--fields', 'ID,contact.'], "'contact.' ends with a dot"],
    [['accounts', 'export', '--format', 'ndjson', '--fields', 'contact.'], "'contact.' ends with a dot"],
    [['accounts', 'query', '--sort', '-'], "--sort '-' names no field: give -FIELD (descending), e.g. -lastmodified"],
    [['accounts', 'query', '--sort', '+'], "--sort '+' names no field: give +FIELD (ascending), e.g. +lastmodified"],
    [['accounts', 'query', '--fields', 'name='], "--fields 'name=' names no field after '=': give alias=path, e.g. name=lastname"],
  ])('%j', async (argv, message) => {
    expect(refused(await run([...argv, '--limit', '1'].slice(0, argv[1] === 'export' ? argv.length : undefined)))).toContain(message);
  });

  it('a sortable path through a reference is still sent', async () => {
    const r = await run(['accounts', 'query', '--sort', '-contact.lastname', '--print-request']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).sort).toEqual(['-contact.lastname']);
  });
});

describe('describe: a path with an empty part names what is missing', () => {
  it.each([
    ['accounts.', "'accounts.' ends with a dot: give a field after it, as RESOURCE or RESOURCE.FIELD (e.g. accounts.lastname)"],
    ['.lastname', "'.lastname' starts with a dot: give the resource first, as RESOURCE or RESOURCE.FIELD (e.g. accounts.lastname)"],
    ['accounts..lastname', "'accounts..lastname' has two dots in a row"],
  ])('%s', async (path, message) => {
    expect(refused(await run(['describe', path]))).toContain(message);
  });
});

describe('messages: "an" before a vowel', () => {
  it.each([
    [['transactions', 'sum', 'items'], 'it is an items field'],
    [['stocktransactions', 'sum', 'serials'], 'it is an array field'],
    [['transactions', 'sum', 'netamount', '--by', 'items'], 'it is an items field'],
  ])('%j', async (argv, message) => {
    expect(refused(await run(argv))).toContain(message);
  });
});

describe('ETags: blank and oversized are refused before sending, in a dry run as in the run', () => {
  it.each([['update', ['1', 'firstname=x']], ['delete', ['1', '--yes']]])('accounts %s --if-match " " [--dry-run]', async (verb, rest) => {
    for (const dry of [[], ['--dry-run']]) {
      expect(refused(await run(['accounts', verb, ...rest, '--if-match', ' ', ...dry]))).toBe('an empty If-Match is no precondition; give the ETag the record was read with');
    }
  });

  it.each([['--if-none-match', ['get', '1']], ['--if-match', ['update', '1', 'firstname=x', '--dry-run']], ['--if-match', ['delete', '1', '--yes']]])('%s of 1,025 characters', async (flag, rest) => {
    expect(refused(await run(['accounts', ...rest, flag, `"${'a'.repeat(1023)}"`]))).toBe(`${flag} takes an ETag of at most 1024 characters, and this one has 1025; give the ETag get --verbose shows`);
  });

  it('an ETag of 1,024 characters is sent', async () => {
    const r = await run(['accounts', 'get', '1', '--if-none-match', `"${'a'.repeat(1022)}"`]);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe("'-' where a file is needed", () => {
  it('watch --cursor-file - is refused', async () => {
    expect(refused(await run(['accounts', 'watch', '--once', '--cursor-file', '-']))).toBe(
      '--cursor-file takes a file the watch can resume from, not - (standard output); give a file name such as ./feed.cursor',
    );
  });

  it('import --results - is refused', async () => {
    const rows = join(tempDir(), 'rows.csv');
    writeFileSync(rows, 'ID\n1\n');
    expect(refused(await run(['accounts', 'import', '--from', rows, '--skip-invalid', '--results', '-']))).toContain('--results takes a file name, not - (standard output)');
  });

  it('export --output-file - writes standard output; with --resume or --manifest it is refused', async () => {
    const r = await run(['accounts', 'export', '--format', 'ndjson', '--fields', 'ID', '--filter', 'ID = 1', '--output-file', '-']);
    expect({ code: r.code, stdout: r.stdout }, r.stderr).toEqual({ code: 0, stdout: '{"ID":1}\n' });
    sandbox().sandbox.hooks.requests.length = 0;
    for (const flag of ['--resume', '--manifest']) {
      expect(refused(await run(['accounts', 'export', '--format', 'ndjson', '--output-file', '-', flag]))).toBe(
        `${flag} needs a file to write (- is standard output, which has no checkpoint or manifest beside it); give --output-file FILE`,
      );
    }
  });
});

describe('prototype words are no date or flag words', () => {
  it.each([['__proto__'], ['constructor']])('--since %s is not a date', async (word) => {
    expect(refused(await run(['accounts', 'watch', '--once', '--since', word]))).toMatch(/is not a date/);
  });

  it.each([['lastmodified > constructor', /is not a date/], ['locked = constructor', /is not a flag/], ['lastname ~ "[[.constructor.]]"', /is not one character/]])('--filter %j', async (expr, message) => {
    const r = await run(['accounts', 'count', '--filter', expr]);
    expect({ code: r.code, sent: sent() }, r.stderr).toEqual({ code: 2, sent: [] });
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/internal error|TypeError/);
  });
});

describe('help: the --expand example is one the family takes', () => {
  it('accounts (nothing expands) says so; contacts gives one of its own', async () => {
    expect((await run(['accounts', 'query', '--help'])).stdout.replace(/\s+/g, ' ')).toContain('--expand <list> expand composite and bin file fields (accounts has none)');
    const help = (await run(['contacts', 'query', '--help'])).stdout.replace(/\s+/g, ' ');
    const example = /--expand <list> expand composite and bin file fields, e\.g\. (\w+)/.exec(help)?.[1];
    expect(example).toBeDefined();
    expect((await run(['contacts', 'query', '--expand', example ?? '', '--print-request'])).code).toBe(0);
  });
});

describe('watch --cursor-file: the connection options are checked before the file is made', () => {
  it.each([[['--ca-file', '/nonexistent/ca.pem']], [['--token-file', '/nonexistent/token']]])('%j: exit 2, no cursor file', async (global) => {
    const cursor = join(tempDir(), 'feed.cursor');
    const r = await run([...global, 'accounts', 'watch', '--once', '--cursor-file', cursor]);
    expect(r.code, r.stderr).toBe(2);
    expect(existsSync(cursor)).toBe(false);
  });

  it('a path with a line break is shown escaped in the one-line "damaged" message', async () => {
    const path = join(tempDir(), 'feed\r\nsvc: forged line');
    writeFileSync(path, 'not a cursor\n');
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', path]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/is damaged \(not JSON/);
  });
});

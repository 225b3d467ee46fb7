/**
 * s10-flags: what the sweep (s10-flags-sweep.test.ts) and a hand search of the option surface found, one
 * test each, against this file's own sandbox (in-process; `hooks.requests` says what reached the service).
 *
 * README, Exit codes: "2 | usage | bad input: unknown command, option, resource or field, or an invalid value;
 * nothing was written, and no request went out but those a check needs"; "An error is one line on stderr
 * naming the problem and the fix". Query options: `--print-request` "the JSON body, nothing sent"; writes:
 * "`--dry-run` on every write". --jq: "An expression that does not compile is exit 2 with jq's message on one
 * line, before anything is sent".
 *
 * Tests named "HELD: …" pass today (claims that held); the others fail until svc is fixed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, svc, tempConfigDir, type CliRun } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';
import { root } from './s7-support.js';

const { sandbox, run } = sandboxCli();
const sent = (): string[] => sandbox().sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`);
const lines = (s: string): string[] => s.replace(/\n$/, '').split('\n');

/** A refusal as the README's table has it: exit 2, one line starting "svc: ", nothing on stdout, nothing sent. */
function expectRefusal(r: CliRun, what: string): void {
  expect({ code: r.code, stdout: r.stdout, lines: lines(r.stderr).length, sent: sent() }, `${what}: ${r.stderr.trim()}`).toEqual({ code: 2, stdout: '', lines: 1, sent: [] });
  expect(r.stderr).toMatch(/^svc: /);
}

describe('a global option is taken out of the line even where it is the value of another option', () => {
  // commander lets the root parse its own options (-v, -o, --crlf, …) anywhere in the line; the verb then reads
  // the next word as its option's value, so the --print-request, --explain or --dry-run after it is swallowed.
  it('svc accounts query --search -v --print-request sends nothing (it sends the query, searching for "--print-request")', async () => {
    const r = await run(['accounts', 'query', '--search', '-v', '--print-request']);
    expect(sent(), `stdout ${JSON.stringify(r.stdout.slice(0, 80))}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`).toEqual([]);
    if (r.code === 0) expect(JSON.parse(r.stdout)).toEqual({ query: '-v' });
  });

  it('svc accounts count --search --crlf --explain sends nothing (it counts, searching for "--explain")', async () => {
    const r = await run(['accounts', 'count', '--search', '--crlf', '--explain']);
    expect(sent(), `exit ${r.code}, stdout ${JSON.stringify(r.stdout)}`).toEqual([]);
  });

  it('svc accounts update 1 firstname=x --if-match -v --dry-run sends no PATCH (today: a PATCH with If-Match: --dry-run)', async () => {
    const r = await run(['accounts', 'update', '1', 'firstname=S10DryRun', '--if-match', '-v', '--dry-run']);
    expect(sent().filter((q) => !q.startsWith('GET ')), `exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`).toEqual([]);
  });
});

describe('--jq: a value with a leading dash is passed to jq as its own command-line option', () => {
  it.each([['--help'], ['-h'], ['--version'], ['--build-configuration']])(
    'svc accounts count --jq=%s is exit 2 naming a bad expression, nothing sent (today: jq\'s own text on stdout, exit 0)',
    async (expr) => {
      expectRefusal(await run(['accounts', 'count', `--jq=${expr}`]), `--jq=${expr}`);
    },
  );

  it.each([['-n'], ['-s'], ['--tab'], ['--arg'], ['--rawfile'], ['-L/etc']])(
    'svc accounts count --jq=%s: exit 2 before anything is sent, in words that name no svc internals (inputString, [worker eval])',
    async (expr) => {
      const r = await run(['accounts', 'count', `--jq=${expr}`]);
      expect(r.stderr).not.toMatch(/inputString|worker eval/);
      expectRefusal(r, `--jq=${expr}`);
    },
  );

  it('HELD: an expression that starts with a minus sign still works: --jq=-.count and --jq=-1', async () => {
    expect((await run(['accounts', 'count', '--jq=-.count'])).stdout).toMatch(/^-\d+\n$/);
    expect((await run(['accounts', 'count', '--jq=-1'])).stdout).toBe('-1\n');
  });
});

describe('an option given twice: the first value is dropped without a word (svc refuses it for -o alone)', () => {
  it('svc accounts count --filter-file A --filter-file B counts A and B ANDed (as --filter and --filter-json do), or refuses: never B alone', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    writeFileSync(a, '{"ID": 1}');
    writeFileSync(b, '{"type": 1}');
    const both = JSON.parse((await run(['accounts', 'count', '--filter-json', '{"ID": 1}', '--filter-json', '{"type": 1}'])).stdout) as { count: number };
    const onlyB = JSON.parse((await run(['accounts', 'count', '--filter-file', b])).stdout) as { count: number };
    expect(onlyB.count).toBeGreaterThan(both.count + 1);
    const r = await run(['accounts', 'count', '--filter-file', a, '--filter-file', b]);
    // A `delete --filter-file a.json --filter-file b.json --yes` deletes every record of b.json (the dry run shows it).
    if (r.code === 2) expect(lines(r.stderr)).toHaveLength(1);
    else expect(JSON.parse(r.stdout), `the filter sent: ${JSON.stringify(sandbox().sandbox.hooks.requests.at(-1)?.body)}`).toEqual(both);
  });

  it('HELD: -o given twice is refused (the rule the others break)', async () => {
    const r = await run(['accounts', 'count', '-o', 'csv', '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/given twice/);
  });

  it.each([
    ['export --output-file', (d: string) => ['accounts', 'export', '--format', 'ndjson', '--fields', 'ID', '--output-file', join(d, 'first.ndjson'), '--output-file', join(d, 'second.ndjson')], '--output-file'],
    ['export --format', () => ['accounts', 'export', '--fields', 'ID', '--format', 'csv', '--format', 'ndjson'], '--format'],
    ['sync --into', (d: string) => ['accounts', 'sync', '--fields', 'ID', '--into', join(d, 'first.sqlite'), '--into', join(d, 'second.sqlite')], '--into'],
    ['watch --cursor-file', (d: string) => ['accounts', 'watch', '--once', '--fields', 'ID', '--cursor-file', join(d, 'first.cursor'), '--cursor-file', join(d, 'second.cursor')], '--cursor-file'],
    ['query --fields', () => ['accounts', 'query', '--fields', 'ID', '--fields', 'lastname', '--limit', '1'], '--fields'],
    ['count --search', () => ['accounts', 'count', '--search', 'Fischer', '--search', 'Dubois'], '--search'],
    ['update --data', () => ['accounts', 'update', '1', '--data', '{"firstname": "A"}', '--data', '{"lastname": "B"}', '--dry-run'], '--data'],
    ['update --if-match', () => ['accounts', 'update', '1', 'firstname=x', '--if-match', '"a"', '--if-match', '"b"', '--dry-run'], '--if-match'],
  ])('%s given twice is exit 2 naming it, nothing written or sent (today: the last wins, the first is lost)', async (_label, argv, flag) => {
    const d = tempDir();
    const r = await run(argv(d));
    expect(existsSync(join(d, 'first.ndjson')) || existsSync(join(d, 'second.ndjson')) || existsSync(join(d, 'second.sqlite')) || existsSync(join(d, 'second.cursor')), 'a file was written').toBe(false);
    expect(r.stderr).toContain(flag);
    expectRefusal(r, flag);
  });
});

describe('global options: an empty value (an unset variable) is taken as if the option were absent, or worse', () => {
  it.each([['--timeout'], ['--retries'], ['--token-file'], ['--ca-file']])(
    'svc accounts count %s "" is exit 2 "is given an empty value", as --url and --profile say',
    async (flag) => {
      expectRefusal(await run(['accounts', 'count', flag, '']), `${flag} ''`);
    },
  );

  it('HELD: --url "" and --profile "" are refused naming the option', async () => {
    for (const flag of ['--url', '--profile']) {
      const r = await run(['accounts', 'count', flag, '']);
      expect(r.stderr).toMatch(new RegExp(`^svc: ${flag} is given an empty value`));
    }
  });

  it('--retries "" means no retries at all: one 503 then fails the command that --retries 3 (the default) survives', async () => {
    const hooks = sandbox().sandbox.hooks;
    hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 503, body: 'busy', headers: { 'Retry-After': '0' } } });
    const withDefault = await run(['accounts', 'count']);
    expect(withDefault.code, withDefault.stderr).toBe(0);
    hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 503, body: 'busy', headers: { 'Retry-After': '0' } } });
    const withEmpty = await run(['accounts', 'count', '--retries', '']);
    // Either refused (exit 2) or the default 3 tries: never silently 0.
    expect(withEmpty.code, withEmpty.stderr).not.toBe(1);
  });

  it.each([['   '], ['0x10'], ['-0'], ['1e1'], ['0b11']])('--retries %j is exit 2 ("use a whole number from 0 to 20"), not Number()\'s reading of it', async (v) => {
    expectRefusal(await run(['accounts', 'count', '--retries', v]), `--retries ${v}`);
  });
});

describe('svc … watch --cursor-file F: a bad global option is exit 2, yet F is written', () => {
  it.each([
    [['--retries', 'abc']],
    [['--timeout', 'abc']],
    [['--ca-file', '/nonexistent/ca.pem']],
    [['--token-file', '/nonexistent/token']],
  ])('%j accounts watch --once --cursor-file F: exit 2 and no F (README: "nothing was written")', async (global) => {
    const cursor = join(tempDir(), 'feed.cursor');
    const r = await run([...global, 'accounts', 'watch', '--once', '--cursor-file', cursor]);
    expect(r.code, r.stderr).toBe(2);
    expect(existsSync(cursor), `exit 2 (${r.stderr.trim()}) left ${cursor} behind`).toBe(false);
  });

  it('HELD: a bad option of watch itself (--interval abc) leaves no cursor file', async () => {
    const cursor = join(tempDir(), 'feed.cursor');
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', cursor, '--interval', 'abc']);
    expect(r.code).toBe(2);
    expect(existsSync(cursor)).toBe(false);
  });
});

describe('a date word is looked up on a plain object: __proto__ and constructor are found', () => {
  it.each([['__proto__'], ['constructor']])('svc accounts watch --once --since %s is exit 2 "not a date" (today: "unexpected error: … is not iterable", exit 1)', async (word) => {
    const r = await run(['accounts', 'watch', '--once', '--since', word]);
    expect(r.stderr).not.toMatch(/unexpected error|not iterable/);
    expectRefusal(r, `--since ${word}`);
  });

  it.each([['__proto__'], ['constructor']])('svc accounts count --filter "lastmodified > %s" names a bad date, not "internal error compiling the filter: TypeError"', async (word) => {
    const r = await run(['accounts', 'count', '--filter', `lastmodified > ${word}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/internal error|TypeError|not iterable/);
  });

  it('HELD: --since toString, hasOwnProperty are "not a date"', async () => {
    for (const word of ['toString', 'hasOwnProperty']) expect((await run(['accounts', 'watch', '--once', '--since', word])).stderr).toMatch(/is not a date/);
  });
});

describe('a field the catalogue says cannot be sorted, or a path to nothing, reaches the service (400, exit 1)', () => {
  it.each([
    ['transactions', ['--sort', 'items']],
    ['transactions', ['--sort', '-items']],
    ['stocktransactions', ['--sort', 'serials']],
    ['accounts', ['--sort', 'contact.']],
    ['accounts', ['--fields', 'contact.']],
    ['accounts', ['--fields', 'ID,contact.']],
  ])('svc %s query %j is exit 2 before anything is sent, as --filter on the same field is', async (family, opt) => {
    expectRefusal(await run([family, 'query', ...opt, '--limit', '1']), `${family} ${opt.join(' ')}`);
  });

  it('HELD: --filter on a composite field is refused before sending (the check --sort lacks)', async () => {
    const r = await run(['transactions', 'count', '--filter', 'items = 1']);
    expect(r.code).toBe(2);
    expect(sent()).toEqual([]);
  });
});

describe('a blank value (or only commas) is taken as if the option were absent', () => {
  it.each([
    [['accounts', 'query', '--sort', '   ']],
    [['accounts', 'query', '--sort', ',']],
    [['accounts', 'query', '--sort', ',,']],
    [['accounts', 'query', '--expand', '   ']],
    [['contacts', 'get', '1', '--expand', ',']],
    [['accounts', 'get', '1', '--if-none-match', '   ']],
    [['accounts', 'sync', '--into', '@TMP/copy.sqlite', '--fields', '   ']],
    [['api', '   ']],
  ])('svc %j is exit 2 naming the option, nothing sent', async (argv) => {
    const d = tempDir();
    const r = await run(argv.map((a) => a.replace('@TMP', d)));
    expect(existsSync(join(d, 'copy.sqlite')), 'sync made the copy').toBe(false);
    expectRefusal(r, argv.join(' '));
  });

  it('HELD: --fields "   " and --fields "," are refused by query, export and watch (the rule sync breaks)', async () => {
    for (const argv of [['accounts', 'query'], ['accounts', 'export', '--format', 'ndjson'], ['accounts', 'watch', '--once']]) {
      expect((await run([...argv, '--fields', '   '])).stderr).toMatch(/--fields needs at least one field/);
    }
  });
});

describe('--dry-run shows as sendable what the real run refuses', () => {
  it.each([['update', ['1', 'firstname=x']], ['delete', ['1', '--yes']]])('svc accounts %s … --if-match " " --dry-run is exit 2 as without --dry-run (today: exit 0, "if-match:    " shown)', async (verb, rest) => {
    const real = await run(['accounts', verb, ...rest, '--if-match', ' ']);
    expect(real.stderr).toMatch(/empty If-Match is no precondition/);
    const dry = await run(['accounts', verb, ...rest, '--if-match', ' ', '--dry-run']);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: real.code, stderr: real.stderr });
  });
});

describe('options put before the verb', () => {
  it.each([
    [['--limit', '5', 'accounts', 'query']],
    [['accounts', '--limit', '5', 'query']],
    [['--filter', 'ID = 1', 'accounts', 'count']],
  ])('svc %j: taken, or refused saying --limit/--filter belongs after the verb (today: "unknown option", and the help it points to does not list it)', async (argv) => {
    const r = await run(argv);
    if (r.code === 0) return;
    expect(r.code).toBe(2);
    // e.g. "--limit is an option of 'svc accounts query': put it after the verb"
    expect(r.stderr).toMatch(/accounts (query|count)/);
  });
});

describe('a misspelt or misplaced option: the suggestion', () => {
  it.each([
    [['accounts', 'query', '--format', 'csv'], /-o\b|--output/, /did you mean '--sort'/],
    [['accounts', 'import', '--file', 'rows.csv'], /--from/, /--ca-file/],
    [['accounts', 'import', '--input', 'rows.csv'], /--from/, /did you mean '--output'/],
    [['accounts', 'export', '--sort', 'ID', '--format', 'csv'], /--sort/, /did you mean '--format'/],
    [['accounts', 'query', '--LIMIT', '5'], /did you mean '--limit'/, /^$/],
    [['accounts', 'query', '-limit', '5'], /--limit/, /^$/],
  ])('svc %j suggests the option meant, not an unrelated one', async (argv, want, notWant) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(notWant);
    expect(r.stderr).toMatch(want);
  });

  it('HELD: --limt, --filer, --page-szie, --Limit get the right suggestion', async () => {
    for (const [typo, meant] of [['--limt', '--limit'], ['--filer', '--filter'], ['--page-szie', '--page-size'], ['--Limit', '--limit']]) {
      const r = await run(['accounts', 'query', typo ?? '', '1']);
      expect(r.stderr).toContain(`did you mean '${meant}'`);
    }
  });
});

describe('messages that name nothing, or say the wrong thing', () => {
  it.each([
    [['accounts', 'query', '--sort', '-']],
    [['accounts', 'query', '--sort', '+']],
    [['accounts', 'query', '--fields', 'name=']],
    [['describe', 'accounts.']],
    [['describe', '.lastname']],
  ])("svc %j: the message does not name an empty field ''", async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/(field|resource) ''/);
  });

  it.each([
    [['transactions', 'sum', 'items'], 'items'],
    [['stocktransactions', 'sum', 'serials'], 'array'],
    [['transactions', 'sum', 'netamount', '--by', 'items'], 'items'],
  ])('svc %j: the message says "an %s field" (today "a … field")', async (argv, type) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain(`is a ${type} field`);
  });

  it('svc profile add _x: the message gives the rule the name broke (it starts with a letter or digit), not one it keeps', async () => {
    for (const name of ['_x', '.x', '__proto__', 'a'.repeat(64)]) {
      const r = await svc(['profile', 'add', name, '--url', 'https://erp.example.com/acme'], { configDir: tempConfigDir() });
      expect(r.code).toBe(2);
      expect(r.stderr, name).toMatch(/start|begin|first|at most|63|reserved/);
    }
  });

  it('svc login --web --client-id "": says the value is empty, not "pass --client-id ID" (it was passed)', async () => {
    const r = await svc(['login', '--web', '--no-browser', '--client-id', ''], { configDir: tempConfigDir(), env: { SVC_URL: sandbox().instanceUrl } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--client-id is given an empty value/);
  });

  it('svc profile add p --url "": says the value is empty, not "no URL … run svc profile add p --url …"', async () => {
    const r = await svc(['profile', 'add', 'p', '--url', ''], { configDir: tempConfigDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--url is given an empty value/);
  });

  it('svc accounts watch --cursor-file "F\\r\\nG" on a file that is no cursor: the path is escaped, the message one line', async () => {
    const d = tempDir();
    const path = join(d, 'feed\r\nsvc: forged line');
    writeFileSync(path, 'not a cursor\n');
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', path]);
    expect(r.code).toBe(2);
    expect(lines(r.stderr), r.stderr).toHaveLength(1);
  });

  it('svc accounts query --help offers --expand "e.g. picbinfile", and accounts has nothing to expand: the example is one the family takes', async () => {
    const help = (await run(['accounts', 'query', '--help'])).stdout;
    const example = /--expand <list>\s+.*e\.g\. (\w+)/.exec(help.replace(/\n\s+/g, ' '))?.[1];
    if (example === undefined) return; // not offered, or no example: fine
    const r = await run(['accounts', 'query', '--expand', example, '--limit', '1']);
    expect(r.code, `the help's own example: ${r.stderr.trim()}`).toBe(0);
  });
});

describe("'-' reads standard input for --from, --data-file, --filter-file and --input; for the options that write it is a file named '-'", () => {
  /** The built svc run in a directory of its own (a relative name lands there, never in the repository). */
  async function inDir(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; files: string[] }> {
    const cwd = tempDir();
    const s = sandbox();
    const child = spawn(process.execPath, [`${root}bin/svc.js`, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_CONFIG_DIR: tempConfigDir(), SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(timer);
    return { code, stdout, stderr, files: readdirSync(cwd) };
  }

  it("svc accounts export --format ndjson --fields ID --output-file - writes to stdout (or is refused), never a file named '-'", async () => {
    const r = await inDir(['accounts', 'export', '--format', 'ndjson', '--fields', 'ID', '--output-file', '-']);
    expect(r.files, `exit ${r.code}, stdout ${JSON.stringify(r.stdout.slice(0, 40))}`).not.toContain('-');
    if (r.code === 0) expect(r.stdout).toMatch(/^\{"ID":1\}\n/);
    else expect(r.code).toBe(2);
  });

  it.each([
    [['accounts', 'watch', '--once', '--fields', 'ID', '--cursor-file', '-']],
    [['accounts', 'import', '--from', '@ROWS', '--skip-invalid', '--results', '-']],
  ])("svc %j: no file named '-' (standard output, or exit 2)", async (argv) => {
    // One row that is invalid (an ID and nothing to change): skipped, nothing sent, its line written to the results.
    const rows = join(tempDir(), 'rows.csv');
    writeFileSync(rows, 'ID\n1\n');
    const r = await inDir(argv.map((a) => (a === '@ROWS' ? rows : a)));
    expect(r.files, `exit ${r.code}: ${r.stderr.trim()}`).not.toContain('-');
  });
});

describe('values no header or service takes, sent anyway', () => {
  it('svc accounts get 1 --if-none-match "<100,000 characters>" is exit 2 before sending (today: sent, "failed with 431", exit 1)', async () => {
    const r = await run(['accounts', 'get', '1', '--if-none-match', `"${'a'.repeat(100_000)}"`]);
    expect(r.stderr).not.toMatch(/failed with 431$/m);
    expectRefusal(r, 'a 100,000-character ETag');
  });

  it('svc login --expires 1ms is exit 2 before sending (today: sent, 400 "expdate must be in the future", exit 1)', async () => {
    const s = sandbox();
    const app = s.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli');
    const r = await svc(['login', '--user', 'demo', '--password-stdin', '--expires', '1ms', '--insecure-storage'], {
      configDir: tempConfigDir(),
      stdin: [s.user('demo').password],
      env: { SVC_URL: s.instanceUrl, SVC_APPSECRET: app?.appsecret },
    });
    expectRefusal(r, '--expires 1ms');
  });

  it('svc accounts query -o csv --delimiter ESC is exit 2 (a control character as the separator), as a line break is', async () => {
    const r = await run(['accounts', 'query', '-o', 'csv', '--fields', 'ID,lastname', '--limit', '2', '--delimiter', '\u001b']);
    expectRefusal(r, '--delimiter ESC');
  });
});

describe('README, Exit codes: "An error is one line on stderr … The exceptions: …"', () => {
  it('svc accounts (a group without its verb) writes the whole help to stderr, exit 2: one line, or the README names it among the exceptions', async () => {
    const r = await run(['accounts']);
    expect(r.code).toBe(2);
    if (lines(r.stderr).length === 1) return;
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const para = readme.slice(readme.indexOf('`svc help exit-codes` prints the same table'), readme.indexOf('## Environment variables'));
    expect(para, `stderr has ${lines(r.stderr).length} lines`).toMatch(/without (a|its) verb|group/);
  });
});

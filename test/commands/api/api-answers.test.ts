/**
 * `svc api` against a real sandbox: error answers (read at most 64 KB, the
 * status always the outcome, --jq on a JSON error body only), -i with --jq,
 * header values a request cannot carry, -F numbers a JSON number cannot hold,
 * --dry-run with --jq, and --input / @FILE from a FIFO (read without blocking,
 * bounded by --timeout).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../../helpers/cli.js';

const { sandbox, run } = sandboxCli({ record: true });
const dir = mkdtempSync(join(tmpdir(), 'svc-api-answers-'));

describe('svc api: an error answer', () => {
  it('is the outcome with --jq: exit 3 for a JSON 404 the expression fails on (jq\'s output when it works), exit 1 naming a 500 that is not JSON', async () => {
    const url = `${sandbox.instanceUrl}/api/v1/accounts/7`;
    sandbox.sandbox.hooks.failNext({ path: '/accounts/7', fault: { status: 404, body: '{"error":"no such account"}' } });
    expect(await run(['api', 'accounts/7', '--jq', '.contacts[].ID'])).toEqual({ code: 3, stdout: '', stderr: `svc: GET ${url} failed with 404: {"error":"no such account"}\n` });
    sandbox.sandbox.hooks.failNext({ path: '/accounts/7', fault: { status: 404, body: '{"error":"no such account"}' } });
    expect(await run(['api', 'accounts/7', '--jq', '.error'])).toMatchObject({ code: 3, stdout: 'no such account\n' });
    sandbox.sandbox.hooks.failNext({ path: '/accounts/7', fault: { status: 500, body: 'Internal error [ref 8812]' } });
    expect(await run(['api', 'accounts/7', '--jq', '.', '--retries', '0'])).toEqual({ code: 1, stdout: '', stderr: `svc: GET ${url} failed with 500: Internal error [ref 8812]\n` });
  });

  it('past 64 KB is not written to stdout (not whole), and its message shows its start', async () => {
    const big = JSON.stringify({ error: `database on fire ${'x'.repeat(100 * 1024)}` });
    sandbox.sandbox.hooks.failNext({ path: '/accounts/7', fault: { status: 500, body: big } });
    const r = await run(['api', 'accounts/7', '--retries', '0']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: GET \S+ failed with 500: \{"error":"database on fire x+…\n$/);
    // Just under it: the whole JSON body on stdout, as before.
    const small = JSON.stringify({ error: 'y'.repeat(60 * 1024) });
    sandbox.sandbox.hooks.failNext({ path: '/accounts/7', fault: { status: 500, body: small } });
    expect(await run(['api', 'accounts/7', '--retries', '0'])).toMatchObject({ code: 1, stdout: small });
  });
});

describe('svc api -i --jq', () => {
  it('prints the head as text, then what jq makes of the body (as gh api -i --jq does), on a read and on a create', async () => {
    const read = await run(['api', 'accounts/1', '-i', '--jq', '.ID']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n1\n$/);
    const made = await run(['api', 'PUT', 'accounts', '-f', 'lastname=ApiAnswersIncl', '-f', 'currency=EUR', '-i', '--jq', '.ID']);
    expect(made.code, made.stderr).toBe(0);
    const id = Number(/\r\n\r\n(\d+)\n$/.exec(made.stdout)?.[1]);
    expect((await sandbox.call('GET', `api/v1/accounts/${id}`)).json()).toMatchObject({ lastname: 'ApiAnswersIncl' });
  });
});

describe('svc api -H: values a request header cannot carry', () => {
  it.each([
    ['X-Note: coffee \u2615', 'U+2615 (\u2615)'],
    ['If-Match: "7b67d8\u2026"', 'U+2026 (\u2026)'],
    ['X-Note: caf\u00e9', 'U+00E9 (\u00e9)'],
    ['X-Note: a\u0001b', 'U+0001;'],
    ['X-Note: a\u000bb', 'U+000B;'],
    ['X-Note: a\u202eb', 'U+202E;'],
  ])('%j: exit 2 naming the header and the character, nothing sent (also with --dry-run)', async (header, named) => {
    const before = sandbox.sandbox.hooks.requests.length;
    for (const extra of [[], ['--dry-run']]) {
      const r = await run(['api', 'accounts/1', '-H', header, ...extra]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^svc: -H [\\w-]+: a header value is printable ASCII text, and this one holds ${named.replace(/[()+]/g, '\\$&')}[^\\n]*\\n$`));
    }
    expect(sandbox.sandbox.hooks.requests.length).toBe(before);
  });

  it('sends printable ASCII and tabs as typed', async () => {
    const r = await run(['api', 'accounts/1', '-H', 'X-Note: a\tb ~!', '--jq', '.ID']);
    expect(r).toMatchObject({ code: 0, stdout: '1\n' });
  });
});

describe('svc api -F: numbers a JSON number cannot hold', () => {
  it.each(['9007199254740993.0', '12345678901234567.50', '0.12345678901234567891', '1e-400', '-9007199254740993e0'])('-F amount=%s is exit 2, pointing to -f', async (typed) => {
    const r = await run(['api', 'accounts', '-F', `amount=${typed}`, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: -F 'amount': \S+ has more digits than a JSON number holds and would be sent as \S+; pass it with -f to send it exactly, as a string\n$/);
  });

  it('sends the numbers it holds as typed: 1.50, 1E+2, 5e-324, -0, 0.1, 1e20', async () => {
    const r = await run(['api', 'accounts', '-F', 'a=1.50', '-F', 'b=1E+2', '-F', 'c=5e-324', '-F', 'd=-0', '-F', 'e=0.1', '-F', 'f=1e20', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n\n')[1]).toBe('{"a":1.5,"b":100,"c":5e-324,"d":0,"e":0.1,"f":100000000000000000000}\n');
  });

  it('checks a 100,000-digit number at once (no quadratic work on long runs of zeros)', async () => {
    const zeros = '0'.repeat(100_000);
    const t0 = Date.now();
    expect((await run(['api', 'accounts', '-F', `a=0.${zeros}1`, '--dry-run'])).code).toBe(2);
    expect((await run(['api', 'accounts', '-F', `a=1${zeros}1e-100001`, '--dry-run'])).code).toBe(2);
    const one = await run(['api', 'accounts', '-F', `a=1.${zeros}`, '--dry-run']);
    expect(one.stdout.split('\n\n')[1]).toBe('{"a":1}\n');
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe('svc api --dry-run --jq', () => {
  it('is refused before standard input is read', async () => {
    const r = await run(['api', 'accounts', '--input', '-', '--dry-run', '--jq', '.'], { stdin: ['{"limit":1}'] });
    expect(r).toEqual({ code: 2, stdout: '', stderr: 'svc: --jq filters JSON output, and a dry run (the request, as text) prints none; leave out --jq\n' });
  });
});

describe('svc api --input from a FIFO', () => {
  function fifo(name: string): string {
    const path = join(dir, name);
    execFileSync('mkfifo', [path]);
    return path;
  }

  /** A producer that opens the FIFO (waiting for svc to open it too), writes `text` and closes it. */
  function produce(path: string, text: string): Promise<void> {
    return new Promise((resolve) => {
      const child = spawn('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', text, path], { stdio: 'ignore' });
      child.on('close', () => resolve());
    });
  }

  it('reads what a producer writes, as --input and as -F key=@FIFO', async () => {
    const body = fifo('body.fifo');
    const [r] = await Promise.all([run(['api', 'accounts', '--input', body, '--jq', 'length']), produce(body, '{"filters":{"ID":{"<=":3}},"fields":["ID"]}')]);
    expect(r).toMatchObject({ code: 0, stdout: '3\n' });
    const note = fifo('note.fifo');
    const [d] = await Promise.all([run(['api', 'accounts', '-F', `description=@${note}`, '--dry-run']), produce(note, 'from a pipe')]);
    expect(d.stdout.split('\n\n')[1]).toBe('{"description":"from a pipe"}\n');
  });

  it('gives up on one nobody writes to once --timeout passes: exit 2, nothing sent', async () => {
    const quiet = fifo('quiet.fifo');
    const before = sandbox.sandbox.hooks.requests.length;
    const t0 = Date.now();
    const r = await run(['api', 'accounts', '--input', quiet, '--timeout', '300ms']);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: '${quiet}' gave nothing within 300 ms (a pipe nobody writes to?); check what writes it, or raise --timeout\n`);
    expect(sandbox.sandbox.hooks.requests.length).toBe(before);
  });
});

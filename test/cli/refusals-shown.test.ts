/**
 * What svc refuses is named in one inert line (README, Exit codes: "an error
 * is one line"): a value from argv, a file or the environment is shown as
 * src/util/shown.ts shows outside text. And the words a user types in the
 * wrong place: a group's `help [command]` is help asked for (exit 0), a verb
 * before its family points at `svc <family> <verb>`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/util/duration.js';
import { svc } from '../helpers/cli.js';

/** An escape sequence, a line break and a right-to-left override. */
const V = 'x\u001b[2J\ny\u202ez';
const env = { SVC_URL: 'http://127.0.0.1:9/demo', SVC_TOKEN: 'a'.repeat(40), NO_COLOR: '1' };
// eslint-disable-next-line no-control-regex
const ACTS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

async function refusal(argv: string[]): Promise<string> {
  const r = await svc(argv, { env });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.slice(0, -1).split('\n'), JSON.stringify(r.stderr)).toHaveLength(1);
  expect(r.stderr).not.toMatch(ACTS);
  return r.stderr;
}

describe('a refused value is shown, in one line', () => {
  it.each([
    [['accounts', 'create', `${V}=1`], /unknown field 'x\?\[2J\?y\?z' on accounts/],
    [['accounts', 'create', `lastname:=${V}`], /takes a JSON value, not 'x\?\[2J\?y\?z'/],
    [['accounts', 'create', `type=${V}`], /unknown value 'x\?\[2J\?y\?z' for accounts\.type/],
    [['accounts', 'query', '--expand', V], /cannot expand 'x\?\[2J\?y\?z' on accounts/],
    [['accounts', 'query', '--limit', V], /--limit takes a whole number from 1 to 10000, not 'x\?\[2J\?y\?z'/],
    [['accounts', 'update', V, 'lastname=a'], /invalid ID 'x\?\[2J\?y\?z' for accounts/],
    [['accounts', 'import', '--from', `/nonexistent/${V}`], /cannot read --from '\/nonexistent\/x\?\[2J\?y\?z': no such file/],
    [['accounts', 'sum', 'ID', '--by', V], /unknown --by field 'x\?\[2J\?y\?z' on accounts/],
    [['api', '-X', V, 'accounts'], /unknown method 'x\?\[2J\?y\?z'/],
    [[V], /unknown command 'x\?\[2J\?y\?z'/],
    [['accounts', `--${V}`], /unknown option '--x\?\[2J\?y\?z'/],
    [['--url', V, 'accounts', 'count'], /^svc: invalid instance URL 'x\?\[2J\?y\?z'/],
    [['--ca-file', `/nonexistent/${V}`, 'accounts', 'count'], /cannot read CA file '\/nonexistent\/x\?\[2J\?y\?z'/],
    [['accounts', 'export', '--output', `/nonexistent/${V}/x.csv`], /the directory \/nonexistent\/x\?\[2J\?y\?z does not exist/],
    [['accounts', 'export', '--output', 'a.csv', '--output-file', V], /--output-file x\?\[2J\?y\?z$/m],
    [['accounts', 'export', '--format', V], /unknown export format 'x\?\[2J\?y\?z'/],
    [['sync', V], /unknown family 'x\?\[2J\?y\?z'/],
    [['sync', '--into', V, 'accounts'], /--into x\?\[2J\?y\?z: name a \.sqlite/],
    [['accounts', 'sync', '--into', `/nonexistent/${V}/x.db`], /the directory \/nonexistent\/x\?\[2J\?y\?z does not exist/],
    [['profile', 'add', 'p', '--url', 'https://erp.example.com/acme', '--client-id', V], /invalid client id 'x\?\[2J\?y\?z'/],
  ])('svc %j', async (argv, message) => {
    expect(await refusal(argv)).toMatch(message);
  });

  it('SVC_URL from the environment is shown too', async () => {
    const r = await svc(['accounts', 'count'], { env: { ...env, SVC_URL: `https://${V}/acme` } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("svc: invalid instance URL 'https://x?[2J?y?z/acme'; give one like https://erp.example.com/acme\n");
  });

  it('a path in a failed write or a missing sandbox is shown (io-error, sandbox status)', async () => {
    const missing = `/nonexistent/${V}`;
    const status = await svc(['sandbox', 'status', '--data-dir', missing], { env });
    expect(status.code).toBe(3);
    expect(status.stderr).toBe("svc: no sandbox runs from /nonexistent/x?[2J?y?z; start one with 'svc sandbox start --data-dir '/nonexistent/x?[2J?y?z''\n");
    const from = join(mkdtempSync(join(tmpdir(), 'svc-shown-')), 'rows.ndjson');
    writeFileSync(from, '{"lastname":"a","currency":"EUR"}\n');
    const imp = await svc(['accounts', 'import', '--from', from, '--results', `${missing}/r.ndjson`], { env });
    expect(imp.code).toBe(2);
    expect(imp.stderr).toBe('svc: --results /nonexistent/x?[2J?y?z/r.ndjson: the directory /nonexistent/x?[2J?y?z does not exist; create it or choose another file\n');
  });

  it('parseDuration names the value as shown', () => {
    expect(() => parseDuration(V, '--timeout')).toThrow("invalid --timeout 'x?[2J?y?z'; use a number with ms, s, m, h, d or w, e.g. 30s, 1m30s or 30d");
  });
});

describe("a group's help command", () => {
  it('`svc accounts help WORD` naming no command is one line, exit 2, with the nearest', async () => {
    expect(await refusal(['accounts', 'help', 'descibe'])).toBe("svc: no help for 'descibe' in 'svc accounts'; did you mean 'describe'? (run 'svc accounts --help')\n");
    expect(await refusal(['accounts', 'help', V])).toMatch(/^svc: no help for 'x\?\[2J\?y\?z' in 'svc accounts'/);
  });

  it('`svc sandbox help start` prints the help of `svc sandbox start`, exit 0', async () => {
    const a = await svc(['sandbox', 'help', 'start']);
    const b = await svc(['sandbox', 'start', '--help']);
    expect(a.code).toBe(0);
    expect(a.stderr).toBe('');
    expect(a.stdout).toBe(b.stdout);
  });

  it('`svc resources help [verb]`, whose command also takes a verb of the family resources, is help too', async () => {
    const group = await svc(['resources', 'help']);
    expect({ code: group.code, stderr: group.stderr }).toEqual({ code: 0, stderr: '' });
    expect(group.stdout).toBe((await svc(['resources', '--help'])).stdout);
    const verb = await svc(['resources', 'help', 'query']);
    expect({ code: verb.code, stderr: verb.stderr }).toEqual({ code: 0, stderr: '' });
    expect(verb.stdout).toBe((await svc(['resources', 'query', '--help'])).stdout);
    expect(await refusal(['resources', 'help', 'qury'])).toBe("svc: no help for 'qury' in 'svc resources'; did you mean 'query'? (run 'svc resources --help')\n");
  });

  it('a group without a verb is still a usage error: its help on stderr, exit 2', async () => {
    const r = await svc(['accounts']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: svc accounts /);
  });
});

describe('a verb before its family', () => {
  it.each([
    [['count', 'items'], "svc: unknown command 'count': the family comes first, then the verb: svc items count (run 'svc items --help')\n"],
    [['list', 'accounts', '--limit', '1'], "svc: unknown command 'list': the family comes first, then the verb: svc accounts list (run 'svc accounts --help')\n"],
    [['count'], "svc: unknown command 'count': the family comes first, then the verb: svc <family> count (run 'svc resources' for the families)\n"],
    [['list'], "svc: unknown command 'list': the family comes first, then the verb: svc <family> list (run 'svc resources' for the families)\n"],
    [['list', 'nosuch'], "svc: unknown command 'list': the family comes first, then the verb: svc <family> list (run 'svc resources' for the families)\n"],
    [['delete', 'resources', '1'], "svc: unknown command 'delete': the family comes first, then the verb, and resources has no delete (run 'svc resources --help')\n"],
  ])('svc %j points at svc <family> <verb>', async (argv, line) => {
    expect(await refusal(argv)).toBe(line);
  });

  it('a word that is no verb keeps its did-you-mean', async () => {
    expect(await refusal(['acounts', 'count'])).toMatch(/^svc: unknown command 'acounts'; did you mean 'accounts'\?/);
  });
});

/**
 * s9-readme: README.md read top to bottom against the real CLI (in-process
 * runner, a sandbox of the file's own). Each test quotes the README sentence it
 * holds svc to. Tests named "HELD: …" are claims that held; the others fail
 * today and pass once svc (or, where the test says so, the README) is fixed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** Requests the sandbox logged since the test began (useTestSandbox records afresh for each test). */
const requests = (): string[] => sandbox().sandbox.hooks.requests.map((q) => `${q.method} ${q.url}`);

describe('README, Filtering JSON with --jq: "on every command that prints JSON" (Status: "`--jq` on every JSON output")', () => {
  // The --jq section lists what refuses it (text commands, writes that print no JSON, export); sync is not among them,
  // yet its -o json summary and its --status -o json are JSON, shown under "Output" and "--status" in the README.
  it('svc accounts sync --into F --jq .inserted prints the number (or the README names sync among the commands that refuse --jq)', async () => {
    const into = join(tempDir(), 'copy.sqlite');
    const r = await run(['accounts', 'sync', '--into', into, '--fields', 'ID,lastname', '--jq', '.inserted']);
    if (r.code === 2) {
      // Today: exit 2, "svc: --jq is not taken by sync; pipe its -o json summary to jq".
      const section = readme.slice(readme.indexOf('### Filtering JSON with `--jq`'), readme.indexOf('### Paging'));
      expect(section, `refused (${r.stderr.trim()}), but the README's --jq section does not say sync refuses it`).toMatch(/`sync`|svc sync/);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    expect(Number(r.stdout.trim())).toBeGreaterThan(0);
  });

  it('svc sync --into F --status --jq \'.[0].rows\' prints the rows (or the README names sync among the commands that refuse --jq)', async () => {
    const into = join(tempDir(), 'copy.sqlite');
    const first = await run(['accounts', 'sync', '--into', into, '--fields', 'ID,lastname', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const held = (JSON.parse(first.stdout) as { inserted: number }).inserted;
    const r = await run(['sync', '--into', into, '--status', '--jq', '.[0].rows']);
    if (r.code === 2) {
      const section = readme.slice(readme.indexOf('### Filtering JSON with `--jq`'), readme.indexOf('### Paging'));
      expect(section, `refused (${r.stderr.trim()}), but the README's --jq section does not say sync refuses it`).toMatch(/`sync`|svc sync/);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${held}\n`);
  });
});

describe('README, Exit codes: "2 | usage | bad input: …; nothing was sent"', () => {
  // update/delete --filter without --yes and without a terminal is exit 2, but only after a count was sent (the
  // README's bulk section says "The count comes first", and test/commands/records/bulk-*.test.ts pin it). Either
  // nothing is sent before that exit 2, or the table (src/errors.ts exitCodeTable, `svc help exit-codes`, README)
  // stops promising "nothing was sent" for exit 2.
  const row = (): string => /^\| 2 \| usage \| (.*) \|$/m.exec(readme)?.[1] ?? '';

  it.each([
    ['update', ['firstname=NeverWritten']],
    ['delete', []],
  ])('%s --filter … without --yes, no terminal: exit 2 naming --yes, and no request reaches the service (or the table does not say "nothing was sent")', async (verb, fields) => {
    const r = await run(['accounts', verb, '--filter', 'ID = 1', ...fields]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    const sent = requests();
    // Today: ["POST /demo/api/v1/accounts"] (the count), and the table row says "nothing was sent".
    if (sent.length > 0) expect(row(), `sent ${sent.join(', ')} before exit 2`).not.toMatch(/nothing was sent/);
  });

  it('HELD: delete ID without --yes, no terminal: exit 2 naming --yes, nothing sent', async () => {
    const r = await run(['accounts', 'delete', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(requests()).toEqual([]);
  });
});

describe('README, The HTTP client: "401 adds \\"run svc login\\""; Signing in: SVC_TOKEN and --token-file come before a login', () => {
  // README: "`svc login` warns when `--token-file`, `SVC_TOKEN` or `SVC_TOKEN_FILE` is set, since commands use it
  // before the sign-in just stored" — so "run svc login" is no fix while SVC_TOKEN is set. whoami and auth status
  // already say it right ("the token from SVC_TOKEN is not valid …: set SVC_TOKEN to a valid token, or unset it …").
  const bad = 'f00d'.repeat(10);

  it('HELD: svc whoami with a refused SVC_TOKEN names SVC_TOKEN and the fix', async () => {
    const r = await run(['whoami'], { env: { SVC_TOKEN: bad } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/SVC_TOKEN/);
  });

  it.each([
    ['accounts count', ['accounts', 'count']],
    ['accounts get 1', ['accounts', 'get', '1']],
    ['accounts query', ['accounts', 'query']],
  ])('svc %s with a refused SVC_TOKEN: exit 4 naming SVC_TOKEN (today only "Invalid bearer token (run svc login)")', async (_label, argv) => {
    const r = await run(argv, { env: { SVC_TOKEN: bad } });
    expect(r.code).toBe(4);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/SVC_TOKEN/);
    expect(r.stderr).not.toContain(bad);
  });
});

describe('README, Exports for cron: "`--format csv|ndjson|json` (or `-o`, or the file\'s extension)"', () => {
  it.each([['tsv'], ['table']])('export -o %s: exit 2 saying that format is not one export writes (today: "export needs a format", though one was given)', async (format) => {
    const r = await run(['accounts', 'export', '-o', format]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(format);
    expect(r.stderr).not.toMatch(/needs a format/);
  });

  it('HELD: export -o csv writes CSV to stdout', async () => {
    const r = await run(['accounts', 'export', '-o', 'csv', '--fields', 'ID']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('ID');
  });
});

describe('README, Signing in: "svc whoami # user, name, e-mail, admin, groups, permissions"; Output: "-o table|json|ndjson|csv|tsv on every command"', () => {
  it.each([['csv'], ['tsv']])('whoami -o %s carries the user\'s name and e-mail, not only the permission list', async (format) => {
    const r = await run(['whoami', '-o', format]);
    expect(r.code, r.stderr).toBe(0);
    // Today: "permission,access\naccounts,read and write\n…": name, e-mail, admin and groups are dropped without a word.
    expect(r.stdout).toContain(sandbox.user('demo').email ?? 'demo@demo.example');
    expect(r.stdout).toMatch(/\bdemo\b/);
  });

  it('HELD: whoami -o json carries user, name, e-mail, admin, groups and permissions', async () => {
    const r = await run(['whoami', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout) as object)).toEqual(expect.arrayContaining(['user', 'name', 'email', 'admin', 'groups', 'permissions']));
  });
});

describe('HELD: the README\'s examples and quoted messages, run as written (adapted to the test sandbox)', () => {
  it('the exit-code table: 0, 2, 3 (get and exists), 4 (401 and 403), 5 (409 and 412), as `svc help exit-codes` prints it', async () => {
    expect((await run(['accounts', 'count'])).code).toBe(0);
    expect((await run(['accounts', 'query', '--nosuch'])).code).toBe(2);
    expect((await run(['accounts', 'get', '999999'])).code).toBe(3);
    expect((await run(['accounts', 'exists', '999999'])).code).toBe(3);
    expect((await run(['accounts', 'count'], { env: { SVC_TOKEN: 'f00d'.repeat(10) } })).code).toBe(4);
    expect((await run(['accounts', 'count'], { user: 'field' })).code).toBe(4);
    expect((await run(['accounts', 'delete', '1', '--yes'])).code).toBe(5); // other records depend on it: 409
    expect((await run(['api', 'PATCH', 'accounts/42', '-f', 'firstname=Ada', '-H', 'If-Match: "7b67d8"'])).code).toBe(5); // 412
    const table = await run(['help', 'exit-codes']);
    for (const code of ['0', '1', '2', '3', '4', '5', '130']) expect(table.stdout).toMatch(new RegExp(`^ *${code} `, 'm'));
  });

  it('svc describe acounts: the error line the README quotes, word for word', async () => {
    const r = await run(['describe', 'acounts']);
    expect(r).toEqual({ code: 2, stdout: '', stderr: "svc: unknown resource 'acounts'; did you mean 'accounts'? (run 'svc resources' for the list)\n" });
  });

  it('the --jq messages the README quotes, word for word', async () => {
    expect((await run(['accounts', 'query', '-o', 'table', '--jq', '.'])).stderr).toBe('svc: --jq filters JSON output: use -o json or -o ndjson, not -o table\n');
    expect((await run(['auth', 'token', '--jq', '.'])).stderr).toBe('svc: --jq filters JSON output, and this command prints text; leave out --jq\n');
    expect((await run(['accounts', 'query', '--jq', '.[] | | .x'])).stderr).toBe("svc: invalid --jq expression: syntax error, unexpected '|' (Unix shell quoting issues?) at <top-level>, line 1\n");
    const first = await run(['accounts', 'get', '42', '--jq', '.lastname.first']);
    expect(first).toEqual({ code: 1, stdout: '', stderr: 'svc: --jq: Cannot index string with string "first"\n' });
    expect((await run(['accounts', 'count', '--jq', '$ENV.HOME'])).stdout).toBe('/home/web_user\n');
  });

  it('Using svc: query --fields aliases to CSV, --print-request --jq .limit, get --if-none-match says unchanged with exit 0', async () => {
    const csv = await run(['accounts', 'query', '--fields', 'ID,name=lastname,city=contact.city', '--limit', '3', '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toBe('ID,name,city');
    expect((await run(['accounts', 'query', '--print-request', '--limit', '5', '--jq', '.limit'])).stdout).toBe('5\n');
    const etag = (await run(['api', 'accounts/42', '-i'])).stdout.match(/^etag: (.*)\r$/im)?.[1] ?? '';
    const unchanged = await run(['accounts', 'get', '42', '--if-none-match', etag]);
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(unchanged.stdout).toBe('');
    expect(unchanged.stderr).toMatch(/unchanged/);
  });

  it('Keeping a copy in step: the -o json summary and --status keys, and the _svc_sync columns the sqlite3 example reads', async () => {
    const into = join(tempDir(), 'copy.sqlite');
    const r = await run(['accounts', 'sync', '--into', into, '--filter', 'type = CUSTOMER', '--fields', 'ID,lastname,name=firstname,lastmodified', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout) as object).sort()).toEqual(['cursor', 'deleted', 'family', 'inserted', 'pages', 'seconds', 'updated']);
    const status = await run(['sync', '--into', into, '--status', '-o', 'json']);
    const [state] = JSON.parse(status.stdout) as Record<string, unknown>[];
    for (const key of ['family', 'rows', 'deleted', 'phase', 'afterId', 'cursor', 'runs', 'lastRun', 'lastReconcile', 'runsSinceReconcile', 'filter', 'fields', 'keepDeleted', 'svcVersion', 'running']) expect(state).toHaveProperty([key]);
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(into, { readonly: true });
    try {
      const rows = db.prepare("SELECT family, cursor, runs, datetime(last_reconcile, 'unixepoch') AS t FROM _svc_sync").all() as { family: string }[];
      expect(rows.map((x) => x.family)).toEqual(['accounts']);
    } finally {
      db.close();
    }
  });
});

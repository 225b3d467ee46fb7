/**
 * README "Using svc" / "--jq" / "svc api" claims that svc does not keep (audit
 * of README lines 669-1151). Each test states the README sentence it holds svc to.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();

function tempFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-readme-usage-')), name);
  writeFileSync(file, text);
  return file;
}

const writes = (): string[] =>
  sandbox()
    .sandbox.hooks.requests.filter((q) => q.method !== 'GET' && q.method !== 'POST')
    .map((q) => `${q.method} ${q.url}`);

describe('--jq on a command that prints no JSON is refused up front (README: "A command that prints text … refuses it"; "an update with a typo in --jq changes nothing")', () => {
  it('update --filter … --yes --jq . : exit 2 naming --jq, and no record is written', async () => {
    const created = await run(['accounts', 'create', 'lastname=ReadmeJqUpdate', 'currency=EUR', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { ID: number }).ID;
    sandbox().sandbox.hooks.requests.length = 0;
    const r = await run(['accounts', 'update', '--filter', `ID = ${id}`, 'firstname=Changed', '--yes', '--jq', '.']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--jq/);
    expect(writes()).toEqual([]);
    const after = await run(['accounts', 'get', String(id), '--jq', '.firstname']);
    expect(after.stdout).toBe('\n');
  });

  it('import --from FILE --jq . : exit 2 naming --jq, and nothing is created', async () => {
    const file = tempFile('rows.csv', 'lastname,currency\nReadmeJqImport,EUR\n');
    const r = await run(['accounts', 'import', '--from', file, '--jq', '.']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--jq/);
    expect(writes()).toEqual([]);
    const n = await run(['accounts', 'count', '--filter', 'lastname = ReadmeJqImport', '--jq', '.count']);
    expect(n.stdout).toBe('0\n');
  });

  it('delete --filter … --yes --jq . : exit 2 naming --jq, and no record is deleted', async () => {
    const created = await run(['accounts', 'create', 'lastname=ReadmeJqDelete', 'currency=EUR', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    sandbox().sandbox.hooks.requests.length = 0;
    const r = await run(['accounts', 'delete', '--filter', 'lastname = ReadmeJqDelete', '--yes', '--jq', '.']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--jq/);
    expect(writes()).toEqual([]);
  });

  it('create --dry-run --jq . : the refusal is the one line on stderr (not after "dry run: nothing was sent")', async () => {
    const r = await run(['accounts', 'create', 'lastname=ReadmeJqDry', 'currency=EUR', '--dry-run', '--jq', '.']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^svc: .*--jq/);
  });
});

describe('svc api --paginate names the fix for what it refuses (README: "An error is one line on stderr naming the problem and the fix")', () => {
  it.each(['count=true', 'offset=5', 'export=true'])('-F %s --paginate: exit 2, and the fix is not "sort the output afterwards"', async (field) => {
    const r = await run(['api', 'accounts', '-F', field, '--paginate']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`'${field.split('=')[0]}'`));
    expect(r.stderr).not.toMatch(/sort the output/);
  });
});

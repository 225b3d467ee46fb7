/**
 * What the README states about options, output and exit codes that earlier had
 * no words there (the s9 README audit): held to the real CLI, against a sandbox
 * of the file's own.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, svc } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();
const refused = 'f00d'.repeat(10);

describe('exit 4 ends sync and watch at once (README: Keeping a copy in step, A feed of changes; their --help)', () => {
  it.each([
    ['svc accounts sync', () => ['accounts', 'sync', '--into', join(tempDir(), 'copy.sqlite')]],
    ['svc sync', () => ['sync', '--into', join(tempDir(), 'copy.sqlite'), 'accounts']],
    ['svc accounts watch --once', () => ['accounts', 'watch', '--once']],
  ])('%s: a refused token (401) and a missing permission (403) are exit 4, one line, no retry', async (_label, argv) => {
    for (const opts of [{ env: { SVC_TOKEN: refused } }, { user: 'field' }]) {
      sandbox().sandbox.hooks.requests.length = 0;
      const r = await run(argv(), opts);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(sandbox().sandbox.hooks.requests).toHaveLength(1);
    }
  });

  it.each([[['accounts', 'sync', '--help']], [['sync', '--help']], [['accounts', 'watch', '--help']]])('%j lists exit 4', async (argv) => {
    expect((await svc(argv)).stdout).toMatch(/Exit codes:.* 4 not signed in, or the token or a permission refused/);
  });
});

describe('exit 3 and 0 of svc sandbox (README: the exit-code table)', () => {
  it('sandbox status with nothing running is exit 3', async () => {
    expect((await svc(['sandbox', 'status', '--data-dir', tempDir()])).code).toBe(3);
  });
});

describe('Output: one object as CSV is field,value rows', () => {
  it.each([[['config']], [['settings']], [['accounts', 'get', '42']], [['accounts', 'count']]])('%j -o csv', async (argv) => {
    const r = await run([...argv, '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('field,value');
  });

  it('svc settings -o json --jq .pagesize, as the README shows it', async () => {
    expect((await run(['settings', '-o', 'json', '--jq', '.pagesize'])).stdout).toMatch(/^\d+\n$/);
  });
});

describe('create and update: --data, --data-file, field:=<json>, --if-match', () => {
  it('--data with field arguments over it, and field:=<json> a raw JSON value', async () => {
    const r = await run(['accounts', 'create', '--data', '{"lastname": "Acme", "currency": "EUR"}', 'lastname=Over', 'extdata:={"batch": 7}', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^created accounts \d+\n$/);
    const id = (JSON.parse(r.stdout) as { ID: number }).ID;
    const got = JSON.parse((await run(['accounts', 'get', String(id), '--extdata', '-o', 'json'])).stdout) as { lastname: string; extdata: Record<string, unknown> };
    expect(got.lastname).toBe('Over');
    expect(got.extdata).toMatchObject({ batch: 7 });
  });

  it('--data-file - reads stdin; --data with --data-file is exit 2', async () => {
    const r = await run(['accounts', 'create', '--data-file', '-'], { stdin: ['{"lastname": "FromStdin", "currency": "EUR"}'] });
    expect(r.code, r.stderr).toBe(0);
    expect((await run(['accounts', 'create', '--data', '{}', '--data-file', 'x'])).code).toBe(2);
  });

  it('update ID and delete ID --if-match with an ETag the record no longer has: exit 5, nothing changed', async () => {
    expect((await run(['accounts', 'update', '42', 'firstname=Never', '--if-match', '"stale"'])).code).toBe(5);
    expect((await run(['accounts', 'delete', '42', '--yes', '--if-match', '"stale"'])).code).toBe(5);
    const got = JSON.parse((await run(['accounts', 'get', '42', '-o', 'json'])).stdout) as { firstname: string };
    expect(got.firstname).not.toBe('Never');
  });
});

describe('watch --explain and --print-request send nothing', () => {
  it('print the filter, or the first page body', async () => {
    sandbox().sandbox.hooks.requests.length = 0;
    const e = await run(['accounts', 'watch', '--explain', '--filter', 'type = CUSTOMER']);
    expect(JSON.parse(e.stdout)).toEqual({ type: 1 });
    const p = await run(['accounts', 'watch', '--print-request', '--filter', 'type = CUSTOMER']);
    expect(JSON.parse(p.stdout)).toMatchObject({ sort: ['+ID'], limit: 1000 });
    expect(sandbox().sandbox.hooks.requests).toEqual([]);
  });
});

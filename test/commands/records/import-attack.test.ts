/**
 * Hostile results and state files for `svc accounts import` and the bulk
 * writes: a results path that is a symbolic link, a FIFO or a directory, and
 * a tampered results or state file on --resume. Nothing is written through a
 * link, nothing hangs, a foreign line never counts as a row done.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../../helpers/cli.js';
import { accountsNamed, rowsFile, tempDir } from './import-support.js';

describe('accounts import: hostile results paths and files', () => {
  const { sandbox, run } = sandboxCli();

  it('refuses a results path that is a symbolic link, leaving its target and the service untouched', async () => {
    const dir = tempDir();
    const f = rowsFile('rows.csv', 'lastname,currency,customernum\nAtkLink1,EUR,ATK-L1\n', dir);
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'precious\n');
    const link = join(dir, 'link.ndjson');
    symlinkSync(target, link);
    const r = await run(['accounts', 'import', '--from', f, '--results', link]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: --results '${link}' is a symbolic link; name the file itself (svc replaces the results file when it ends)\n`);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(`${link}.svc-state.json`)).toBe(false);
    expect(accountsNamed(sandbox(), 'AtkLink')).toEqual([]);
  });

  it('refuses a results path that is a FIFO instead of waiting for a reader', async () => {
    const dir = tempDir();
    const f = rowsFile('rows.csv', 'lastname,currency,customernum\nAtkFifo1,EUR,ATK-F1\n', dir);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await run(['accounts', 'import', '--from', f, '--results', fifo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: --results '${fifo}' is not a regular file; name a file to write the results to\n`);
    expect(accountsNamed(sandbox(), 'AtkFifo')).toEqual([]);
  });

  it('refuses a results path that is a directory before anything is sent', async () => {
    const dir = tempDir();
    const f = rowsFile('rows.csv', 'lastname,currency,customernum\nAtkDir1,EUR,ATK-D1\n', dir);
    mkdirSync(join(dir, 'rdir'));
    const r = await run(['accounts', 'import', '--from', f, '--results', join(dir, 'rdir')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: --results '${join(dir, 'rdir')}' is not a regular file; name a file to write the results to\n`);
    expect(accountsNamed(sandbox(), 'AtkDir')).toEqual([]);
  });

  it('on --resume, a results line with a foreign action or a wrong type is not taken as a row done', async () => {
    const dir = tempDir();
    const f = rowsFile('rows.csv', 'lastname,currency,customernum\nAtkRes1,EUR,ATK-R1\nAtkRes2,EUR,ATK-R2\nAtkRes3,EUR,ATK-R3\n', dir);
    const res = join(dir, 'res.ndjson');
    const sha256 = createHash('sha256').update(readFileSync(f)).digest('hex');
    writeFileSync(`${res}.svc-state.json`, JSON.stringify({ svc: 'import', version: 1, family: 'accounts', key: null, input: { name: f, sha256, rows: 3 }, since: '2026-01-01T00:00:00.000Z' }));
    writeFileSync(
      res,
      [
        '{"line":2,"action":"__proto__","id":null,"status":null,"etag":null,"error":null}',
        '{"line":3,"action":"create","id":"x","status":201,"etag":null}',
        '{"line":4.5,"action":"create","id":1,"status":201,"etag":null,"error":null}',
        '{"line":4,"action":"toString","id":1,"status":201,"etag":null,"error":null}',
        '',
      ].join('\n'),
    );
    const r = await run(['accounts', 'import', '--from', f, '--results', res, '--resume']);
    expect(r, r.stderr).toMatchObject({ code: 0, stderr: `accounts import (${f}, 3 rows): 3 created, 0 updated, 0 unchanged, 0 failed\n` });
    expect(accountsNamed(sandbox(), 'AtkRes').map((a) => a.lastname).sort()).toEqual(['AtkRes1', 'AtkRes2', 'AtkRes3']);
    const lines = readFileSync(res, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; action: string });
    expect(lines.map((l) => [l.line, l.action])).toEqual([[2, 'create'], [3, 'create'], [4, 'create']]);
  });

  it('refuses a state file whose key or input is of the wrong type, naming the file', async () => {
    const dir = tempDir();
    const f = rowsFile('rows.csv', 'lastname,currency,customernum\nAtkState1,EUR,ATK-S1\n', dir);
    const res = join(dir, 'res.ndjson');
    writeFileSync(res, '');
    writeFileSync(`${res}.svc-state.json`, '{"svc":"import","version":1,"family":"accounts","key":{"a":1},"input":{"sha256":"x","name":{"b":2}},"since":{}}');
    const r = await run(['accounts', 'import', '--from', f, '--results', res, '--key', 'customernum', '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: ${res}.svc-state.json is not an import state svc wrote (damaged or edited); remove it and ${res} to start the import afresh\n`);
  });
});

describe('accounts import: an input that never ends', () => {
  const { run } = sandboxCli();
  it('refuses --from /dev/zero past the limit instead of reading until memory runs out', async () => {
    const r = await run(['accounts', 'import', '--from', '/dev/zero', '--dry-run']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe("svc: --from '/dev/zero' holds more than 511 MiB, more than svc can import at once; split it into smaller files\n");
  }, 60_000);

  it('still names a directory given as --from', async () => {
    const dir = tempDir();
    const r = await run(['accounts', 'import', '--from', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: cannot read --from '${dir}': it is a directory; check the path (or use - for stdin)\n`);
  });
});

describe('accounts import: a link where svc writes its drafts', () => {
  const { sandbox, run } = sandboxCli();
  it('replaces a symbolic link at RESULTS.svc-state.json.svc-tmp or RESULTS.svc-tmp instead of writing through it', async () => {
    const dir = tempDir();
    const f = rowsFile('rows.csv', 'lastname,currency,customernum\nAtkTmp1,EUR,ATK-T1\n', dir);
    const res = join(dir, 'res.ndjson');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep\n');
    symlinkSync(victim, `${res}.svc-state.json.svc-tmp`);
    symlinkSync(victim, `${res}.svc-tmp`);
    const r = await run(['accounts', 'import', '--from', f, '--results', res]);
    expect(r, r.stderr).toMatchObject({ code: 0, stderr: `accounts import (${f}, 1 row): 1 created, 0 updated, 0 unchanged, 0 failed\n` });
    expect(readFileSync(victim, 'utf8')).toBe('keep\n');
    expect(accountsNamed(sandbox(), 'AtkTmp').length).toBe(1);
  });
});

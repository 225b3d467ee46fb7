/**
 * Attack on de97203 (a --cursor-file in a missing directory is exit 2 naming
 * it): the same mistake one step over — the "directory" is a regular file, or
 * the cursor file is a directory — must be a usage error too, not exit 1 with
 * an "unexpected error" naming a lock's temporary file.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { run } = sandboxCli();

describe('attack today: watch --cursor-file under something that is not a directory', () => {
  it('a cursor file whose directory is a regular file: exit 2 naming it, nothing written', async () => {
    const dir = tempDir();
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'mine\n');
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', join(file, 'cursor.json')]);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/unexpected error|ENOTDIR|\.tmp/);
    expect(r.stderr).toMatch(/^svc: --cursor-file .*notes\.txt.*not a directory/);
    expect(r.code).toBe(2);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  }, 30_000);

  it('a cursor file that is a directory: exit 2 naming it (passes)', async () => {
    const dir = tempDir();
    const sub = join(dir, 'cursors');
    mkdirSync(sub);
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', sub]);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.code).toBe(2);
  }, 30_000);
});

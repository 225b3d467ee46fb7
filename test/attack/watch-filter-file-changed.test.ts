/**
 * watch --cursor-file with --filter-file: the cursor file is tied to the
 * query it was made for. Before the fix only the filter file's path was in
 * the fingerprint, so after the file's contents changed a resumed watch took
 * the old cursor with the new filter: the records matching the new filter
 * that had not changed lately were never reported (missed, exit 0). Now the
 * resumed watch refuses (exit 2, one line) as it does for other changed flags.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { run } = sandboxCli();

describe('watch --cursor-file with a --filter-file whose contents changed', () => {
  it('refuses to resume: exit 2, one line naming the cursor file', async () => {
    const dir = tempDir();
    const filterFile = join(dir, 'filter.json');
    const cursor = join(dir, 'cursor.json');
    writeFileSync(filterFile, '{"type": 1}');
    const first = await run(['accounts', 'watch', '--once', '--filter-file', filterFile, '--cursor-file', cursor]);
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(filterFile, '{"type": 2}');
    const second = await run(['accounts', 'watch', '--once', '--filter-file', filterFile, '--cursor-file', cursor]);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stdout).toBe('');
    expect(second.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(`the cursor file ${cursor} belongs to a watch with other options`);
  });

  it('the same contents resume as before', async () => {
    const dir = tempDir();
    const filterFile = join(dir, 'filter.json');
    const cursor = join(dir, 'cursor.json');
    writeFileSync(filterFile, '{"type": 1}');
    expect((await run(['accounts', 'watch', '--once', '--filter-file', filterFile, '--cursor-file', cursor])).code).toBe(0);
    const again = await run(['accounts', 'watch', '--once', '--filter-file', filterFile, '--cursor-file', cursor]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
  });
});

/**
 * README "Keeping a copy in step" and "A feed of changes: svc <family> watch",
 * checked claim by claim against svc (audit). Each test here is a place where
 * svc does not do what the README says, and the README's behaviour is the
 * sensible one:
 *
 * - "a database that already has a table of the family's name … that svc did
 *   not make, is exit 1 and left exactly as it was": svc adds its _svc_sync
 *   table and turns the file to WAL mode before it refuses.
 * - "`svc sync` always uses the kept ones" (the remembered filter and fields):
 *   `svc sync --into FILE --reset` rebuilds every family with no filter and
 *   every field, dropping what was remembered; `svc sync` takes no filter
 *   flags, so there is no way to give them back in that command.
 * - "a run with different ones refuses with exit 2 naming both": when only
 *   the remembered --tz differs, both sides are printed the same
 *   ("made with --search 'Bistro', not --search 'Bistro'").
 * - "--since TIME writes the records changed from that time, then the
 *   changes": a --since in the future (a typo, 2100) keeps every later change
 *   out of the feed until that date, with exit 0 and nothing said; the cursor
 *   file then refuses --since, so the watch cannot be corrected.
 * - "Exit codes: … 2 for bad usage": a --cursor-file in a directory that does
 *   not exist is exit 1 with a bare ENOENT (sync says "the directory … does
 *   not exist; create it first", exit 2).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

/** One line of `--status -o json` for accounts. */
async function status(file: string): Promise<{ rows: number; filter: unknown; fields: string }> {
  const r = await run(['accounts', 'sync', '--into', file, '--status', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { rows: number; filter: unknown; fields: string };
}

describe('README: Keeping a copy in step', () => {
  it('a SQLite file with a foreign table of the family’s name is exit 1 and left exactly as it was (byte for byte, no _svc_sync, no WAL)', async () => {
    const file = join(tempDir(), 'mine.sqlite');
    const db = new Database(file);
    db.exec("CREATE TABLE accounts (x TEXT); INSERT INTO accounts VALUES ('keep me')");
    db.close();
    const before = readFileSync(file);
    const r = await run(['accounts', 'sync', '--into', file]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("already has a table 'accounts' that svc sync did not make; it is left as it is");
    const check = new Database(file, { readonly: true });
    const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    check.close();
    expect(tables).toEqual([{ name: 'accounts' }]);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('`svc sync --into FILE --reset` keeps each family’s remembered filter and fields (svc sync always uses the kept ones)', async () => {
    const file = join(tempDir(), 'copy.sqlite');
    const made = await run(['accounts', 'sync', '--into', file, '--filter', 'type = CUSTOMER', '--fields', 'ID,lastname']);
    expect(made.code, made.stderr).toBe(0);
    const kept = await status(file);
    const r = await run(['sync', '--into', file, '--reset']);
    expect(r.code, r.stderr).toBe(0);
    const after = await status(file);
    expect({ filter: after.filter, fields: after.fields, rows: after.rows }).toEqual({ filter: kept.filter, fields: kept.fields, rows: kept.rows });
  });

  it('a run whose only difference is --tz is refused naming the remembered --tz, not the same words twice', async () => {
    const file = join(tempDir(), 'copy.sqlite');
    const made = await run(['accounts', 'sync', '--into', file, '--search', 'a', '--tz', 'Europe/Berlin']);
    expect(made.code, made.stderr).toBe(0);
    const r = await run(['accounts', 'sync', '--into', file, '--search', 'a']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: accounts: this copy was made with .*\n$/);
    expect(r.stderr).toContain('Europe/Berlin');
  });
});

describe('README: A feed of changes', () => {
  it('--since in the future does not silently hide the changes made after the watch began (refused, or they are written)', async () => {
    const cursor = join(tempDir(), 'accounts.cursor');
    const first = await run(['accounts', 'watch', '--once', '--since', '2100-01-01', '--fields', 'ID,lastname', '--cursor-file', cursor]);
    if (first.code === 2) {
      expect(first.stdout).toBe('');
      expect(first.stderr).toMatch(/^svc: --since.*\n$/);
      return;
    }
    expect(first.code, first.stderr).toBe(0);
    const patched = await sandbox().call('PATCH', 'api/v1/accounts/6', { token: sandbox().token(), json: { lastname: 'Changed after the watch began' } });
    expect(patched.status, patched.text).toBe(200);
    const next = await run(['accounts', 'watch', '--once', '--fields', 'ID,lastname', '--cursor-file', cursor]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('{"op":"upsert","family":"accounts","record":{"ID":6,"lastname":"Changed after the watch began"}}');
  });

  it('a --cursor-file in a directory that does not exist is bad usage: exit 2, one line naming the directory, nothing written', async () => {
    const dir = tempDir();
    const r = await run(['accounts', 'watch', '--once', '--since', 'now', '--cursor-file', join(dir, 'nodir', 'accounts.cursor')]);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^svc: .*nodir.*\n$/);
    expect(r.stderr).not.toMatch(/ENOENT/);
  });
});

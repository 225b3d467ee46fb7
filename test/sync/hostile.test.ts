/**
 * Targets and settings sync must refuse or survive: a directory, a link or a
 * FIFO as target (exit 2), a file that is not a database or a database with a
 * table of the family's name that svc did not make (exit 1, left as it was),
 * field names that are prototype keys, names that clash, a changed filter
 * without --reset (exit 2) and with it; --keep-deleted and --reconcile-every.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { create, expectedRows, readCopy, remove, tempDir } from './support.js';

const { sandbox, run } = sandboxCli();

/** A one-line refusal with this exit code, mentioning `text`. */
function refused(r: { code: number; stdout: string; stderr: string }, code: number, text: RegExp): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(text);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
}

describe('sync refuses a target it must not write', () => {
  it('a directory, a symbolic link and a FIFO: exit 2', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'd.sqlite'));
    refused(await run(['accounts', 'sync', '--into', join(dir, 'd.sqlite')]), 2, /is a directory/);
    writeFileSync(join(dir, 'real.sqlite'), '');
    symlinkSync(join(dir, 'real.sqlite'), join(dir, 'link.sqlite'));
    refused(await run(['accounts', 'sync', '--into', join(dir, 'link.sqlite')]), 2, /is a symbolic link/);
    execFileSync('mkfifo', [join(dir, 'f.duckdb')]);
    refused(await run(['accounts', 'sync', '--into', join(dir, 'f.duckdb')]), 2, /is a FIFO/);
    refused(await run(['accounts', 'sync', '--into', join(dir, 'no', 'such', 'x.db')]), 2, /does not exist/);
  });

  it.each(['sqlite', 'duckdb'])('a %s target that is not a database: exit 1, bytes untouched', async (engine) => {
    const file = join(tempDir(), `notes.${engine}`);
    const text = 'these are my notes, not a database\n'.repeat(200);
    writeFileSync(file, text);
    refused(await run(['accounts', 'sync', '--into', file]), 1, /is not a (SQLite|DuckDB) database svc can use/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it.each(['sqlite', 'duckdb'])('an empty %s file (0 bytes, as touch makes it) is a new database', async (engine) => {
    const file = join(tempDir(), `touched.${engine}`);
    writeFileSync(file, '');
    const r = await run(['accounts', 'sync', '--into', file, '--fields', 'ID,lastname', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const copy = await readCopy(file, 'accounts');
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', 'ID,lastname', '-o', 'json']), copy.columns));
  });

  it('a SQLite database named .duckdb: exit 1, untouched, and no DuckDB extension fetched to read it', async () => {
    const file = join(tempDir(), 'really-sqlite.duckdb');
    const db = new Database(file);
    db.exec("CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine')");
    db.close();
    const bytes = readFileSync(file);
    const r = await run(['accounts', 'sync', '--into', file]);
    refused(r, 1, /is not a DuckDB database svc can use/);
    expect(r.stderr).not.toMatch(/download/i);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a SQLite database with a foreign accounts table or a foreign _svc_sync table: exit 1, left as it was', async () => {
    const file = join(tempDir(), 'mine.db');
    const db = new Database(file);
    db.exec("CREATE TABLE Accounts (x TEXT); INSERT INTO Accounts VALUES ('keep me')");
    db.close();
    refused(await run(['accounts', 'sync', '--into', file]), 1, /already has a table 'accounts' that svc sync did not make/);
    const other = join(tempDir(), 'other.sqlite');
    const db2 = new Database(other);
    db2.exec("CREATE TABLE _svc_sync (mine TEXT); INSERT INTO _svc_sync VALUES ('keep')");
    db2.close();
    refused(await run(['accounts', 'sync', '--into', other]), 1, /has a table _svc_sync that svc did not make/);
    const check = new Database(file, { readonly: true });
    expect(check.prepare('SELECT * FROM Accounts').all()).toEqual([{ x: 'keep me' }]);
    // Refused before the first write: svc's state table was not made, the file left as it was.
    expect(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = '_svc_sync'").get()).toEqual({ n: 0 });
    check.close();
  });

  it('a DuckDB database with a foreign accounts table: exit 1, left as it was', async () => {
    const file = join(tempDir(), 'mine.duckdb');
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(file);
    const conn = await inst.connect();
    await conn.run("CREATE TABLE accounts (x VARCHAR); INSERT INTO accounts VALUES ('keep me')");
    conn.closeSync();
    inst.closeSync();
    refused(await run(['accounts', 'sync', '--into', file]), 1, /already has a table 'accounts'/);
    const again = await DuckDBInstance.create(file);
    const c2 = await again.connect();
    expect((await c2.runAndReadAll('SELECT * FROM accounts')).getRowObjectsJS()).toEqual([{ x: 'keep me' }]);
    // Refused before the first write: svc's state table was not made.
    expect((await c2.runAndReadAll("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1")).getRowObjectsJS()).toEqual([{ table_name: 'accounts' }]);
    c2.closeSync();
    again.closeSync();
  });
});

describe('field names and settings', () => {
  it.each(['sqlite', 'duckdb'])('prototype keys and quotes as column names (%s): the copy equals query --all', async (engine) => {
    const target = join(tempDir(), `p.${engine}`);
    const fields = '__proto__=lastname,constructor=firstname,hasOwnProperty=type,toString=ID,"q""uote"=description';
    const r = await run(['accounts', 'sync', '--into', target, '--fields', fields, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const copy = await readCopy(target, 'accounts');
    expect(copy.columns.map((c) => c.name)).toEqual(['ID', '__proto__', 'constructor', 'hasOwnProperty', 'toString', '"q""uote"']);
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', `ID,${fields}`, '-o', 'json']), copy.columns));
    expect(Object.getPrototypeOf(copy.rows[0])).toBe(Object.prototype);
  });

  it('names that clash ignoring case, or take ID or _deleted_at: exit 2', async () => {
    const target = join(tempDir(), 'c.sqlite');
    refused(await run(['accounts', 'sync', '--into', target, '--fields', 'A=lastname,a=firstname']), 2, /'a' is named twice/);
    refused(await run(['accounts', 'sync', '--into', target, '--fields', 'id=lastname']), 2, /'ID' is the table's key/);
    refused(await run(['accounts', 'sync', '--into', target, '--keep-deleted', '--fields', '_deleted_at=lastname']), 2, /_deleted_at is the column --keep-deleted adds/);
  });

  it('remembers the filter and fields; a different one refuses without --reset and rebuilds with it', async () => {
    const target = join(tempDir(), 'f.sqlite');
    expect((await run(['accounts', 'sync', '--into', target, '--filter', 'type = CUSTOMER', '--fields', 'ID,lastname,type'])).code).toBe(0);
    refused(await run(['accounts', 'sync', '--into', target, '--filter', 'type = SUPPLIER']), 2, /made with --filter 'type = CUSTOMER', not --filter 'type = SUPPLIER'; .*--reset/);
    refused(await run(['accounts', 'sync', '--into', target, '--fields', 'ID,lastname']), 2, /made with --fields ID,lastname,type, not --fields ID,lastname/);
    expect((await run(['accounts', 'sync', '--into', target])).code).toBe(0);
    const reset = await run(['accounts', 'sync', '--into', target, '--reset', '--filter', 'type = SUPPLIER', '--fields', 'ID,lastname', '-o', 'json']);
    expect(reset.code, reset.stderr).toBe(0);
    const copy = await readCopy(target, 'accounts');
    expect(copy.columns.map((c) => c.name)).toEqual(['ID', 'lastname']);
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--filter', 'type = SUPPLIER', '--fields', 'ID,lastname', '-o', 'json']), copy.columns));
    expect(JSON.parse(reset.stdout)).toMatchObject({ inserted: copy.rows.length, deleted: 0 });
  });

  it.each(['sqlite', 'duckdb'])('--keep-deleted marks a deleted record with _deleted_at; --reconcile-every 3 looks every third run (%s)', async (engine) => {
    const s = sandbox();
    const target = join(tempDir(), `k.${engine}`);
    const gone = await create(s, 'accounts', { lastname: 'To go', currency: 'EUR', type: 1 });
    const args = ['accounts', 'sync', '--into', target, '--fields', 'ID,lastname', '--reconcile-every', '3', '-o', 'json'];
    expect((await run([...args, '--keep-deleted'])).code).toBe(0);
    await remove(s, 'accounts', gone);
    const deleted: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(0);
      deleted.push(Number((JSON.parse(r.stdout) as { deleted: number }).deleted));
    }
    expect(deleted).toEqual([0, 0, 1]);
    const copy = await readCopy(target, 'accounts');
    const marked = copy.rows.find((r) => r.ID === gone);
    expect(marked?._deleted_at).toBeGreaterThan(0);
    const live = copy.rows.filter((r) => r._deleted_at === null).map(({ _deleted_at, ...rest }) => rest);
    expect(live).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', 'ID,lastname', '-o', 'json']), copy.columns));
  });
});

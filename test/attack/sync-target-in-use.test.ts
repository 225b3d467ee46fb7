/**
 * The --into database held by another program: a SQLite write transaction
 * open in another connection (a shell, a BI tool), on an existing copy and
 * on a fresh database; a DuckDB file open in another process. sync stops
 * with exit 1 and one line saying the file is in use and what to do, never
 * "unexpected error", nor "is not a database … give another --into file";
 * the copy is left as it was.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { readCopy, tempDir } from '../sync/support.js';

const { run } = sandboxCli();

function inUse(r: { code: number; stdout: string; stderr: string }, file: string): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(`${file} is in use by another program`);
  expect(r.stderr).not.toMatch(/unexpected error|not a (SQLite|DuckDB) database|give another --into/);
}

describe('sync: the target is in use by another program', () => {
  it('SQLite, a write transaction open on an existing copy: exit 1, one line, the copy unchanged', async () => {
    const file = join(tempDir(), 'copy.sqlite');
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const before = await readCopy(file, 'accounts');
    const db = new Database(file);
    try {
      db.exec('BEGIN IMMEDIATE');
      inUse(await run(['accounts', 'sync', '--into', file]), file);
      db.exec('ROLLBACK');
    } finally {
      db.close();
    }
    expect((await readCopy(file, 'accounts')).rows).toEqual(before.rows);
  });

  it('SQLite, a fresh database with a write transaction open: exit 1, one line', async () => {
    const file = join(tempDir(), 'fresh.sqlite');
    const db = new Database(file);
    try {
      db.exec('CREATE TABLE mine (a); BEGIN EXCLUSIVE; INSERT INTO mine VALUES (1)');
      inUse(await run(['accounts', 'sync', '--into', file]), file);
      db.exec('ROLLBACK');
    } finally {
      db.close();
    }
  });

  it('DuckDB, the file open in another process: exit 1, one line', async () => {
    const file = join(tempDir(), 'copy.duckdb');
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const holder = spawn(process.execPath, ['-e', `const { DuckDBInstance } = require('@duckdb/node-api'); DuckDBInstance.create(${JSON.stringify(file)}).then(() => { process.stdout.write('open\\n'); setInterval(() => {}, 1000); });`], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [chunk] = (await once(holder.stdout, 'data')) as [Buffer];
      expect(chunk.toString()).toBe('open\n');
      inUse(await run(['accounts', 'sync', '--into', file]), file);
    } finally {
      holder.kill('SIGTERM');
      await once(holder, 'exit');
    }
  });
});

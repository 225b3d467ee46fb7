/**
 * Attack on `sync --status` (e527dea) and output sanitising (3047682): copies
 * made by hand (no service needed: --status reads the file alone), in both
 * engines. Each test states the claim it checks.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';
import { tempDir } from '../sync/support.js';

const offline = (argv: string[], tty = false) => svc(argv, { env: { NO_COLOR: '1' }, tty, columns: 400 });

/** The characters 3047682 says never reach the terminal. */
// eslint-disable-next-line no-control-regex
const ACTING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const SQLITE_STATE = `CREATE TABLE _svc_sync (
  family TEXT PRIMARY KEY NOT NULL, filter TEXT NOT NULL, fields TEXT NOT NULL, keep_deleted INTEGER NOT NULL,
  columns TEXT NOT NULL, cursor INTEGER, phase TEXT NOT NULL, after_id INTEGER NOT NULL, svc_version TEXT NOT NULL,
  last_reconcile INTEGER, runs INTEGER NOT NULL, runs_since_reconcile INTEGER NOT NULL, updated_at INTEGER NOT NULL)`;
const DUCKDB_STATE = `CREATE TABLE _svc_sync (
  family VARCHAR PRIMARY KEY, filter VARCHAR NOT NULL, fields VARCHAR NOT NULL, keep_deleted BOOLEAN NOT NULL,
  columns VARCHAR NOT NULL, cursor BIGINT, phase VARCHAR NOT NULL, after_id BIGINT NOT NULL, svc_version VARCHAR NOT NULL,
  last_reconcile BIGINT, runs BIGINT NOT NULL, runs_since_reconcile BIGINT NOT NULL, updated_at BIGINT NOT NULL)`;

interface StateRow {
  family: string;
  filter: string;
  fields: string;
}

const sq = (v: string): string => `'${v.replace(/'/g, "''")}'`;

/** A copy as svc leaves it (SQLite: WAL journal, closed cleanly; DuckDB: checkpointed), with `tableSql` for the family's table. */
async function makeCopy(engine: 'sqlite' | 'duckdb', path: string, row: StateRow, tableSql = 'CREATE TABLE accounts (ID INTEGER PRIMARY KEY NOT NULL, lastname TEXT)'): Promise<void> {
  const values = `${sq(row.family)}, ${sq(row.filter)}, ${sq(row.fields)}, 0, '[]', 1700000000, 'ready', 0, '9.9.9', NULL, 1, 0, 1700000000`;
  if (engine === 'sqlite') {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec(SQLITE_STATE);
    db.exec(tableSql);
    db.exec(`INSERT INTO _svc_sync VALUES (${values})`);
    db.close();
    return;
  }
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  await conn.run(DUCKDB_STATE);
  await conn.run(tableSql.replace('INTEGER PRIMARY KEY NOT NULL', 'BIGINT PRIMARY KEY').replace('TEXT', 'VARCHAR'));
  await conn.run(`INSERT INTO _svc_sync VALUES (${values.replace("0, '[]'", "FALSE, '[]'")})`);
  await conn.run('CHECKPOINT');
  conn.closeSync();
  instance.closeSync();
}

describe('attack: sync --status never writes or creates anything (SQLite WAL copy)', () => {
  it('sync-status-files: a copy closed cleanly (no -wal, no -shm) has neither after --status', async () => {
    const target = join(tempDir(), 'copy.sqlite');
    await makeCopy('sqlite', target, { family: 'accounts', filter: '{"filter":[],"filterJson":[]}', fields: '' });
    expect(existsSync(`${target}-wal`) || existsSync(`${target}-shm`)).toBe(false);
    const before = readFileSync(target);
    const r = await offline(['sync', '--into', target, '--status', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ family: 'accounts', rows: 0 }]);
    expect(readFileSync(target).equals(before)).toBe(true);
    expect({ wal: existsSync(`${target}-wal`), shm: existsSync(`${target}-shm`) }).toEqual({ wal: false, shm: false });
  });
});

describe.each(['sqlite', 'duckdb'] as const)('attack: no text from the file reaches the terminal raw (%s)', (engine) => {
  const hostile = 'x\u001b]0;pwned\u0007\u009b31m\u202eevil\u2066\r\n';
  it('sync-status-files: svc <family> sync --status on a terminal (labelled lines) drops control and direction characters in the remembered filter and fields', async () => {
    const target = join(tempDir(), `copy.${engine}`);
    await makeCopy(engine, target, { family: 'accounts', filter: JSON.stringify({ filter: [`lastname = ${hostile}`], filterJson: [] }), fields: `ID,${hostile}` });
    const r = await offline(['accounts', 'sync', '--into', target, '--status'], true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^family: +accounts\n/);
    expect(r.stdout.split('\n')).toHaveLength(10); // nine labelled lines, one a field, and the final newline
    expect(r.stdout).not.toMatch(ACTING);
  });

  it('sync-status-files: the same for a remembered filter that is not JSON (shown as stored)', async () => {
    const target = join(tempDir(), `copy.${engine}`);
    await makeCopy(engine, target, { family: 'accounts', filter: `not json ${hostile}`, fields: '' });
    const r = await offline(['accounts', 'sync', '--into', target, '--status'], true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(ACTING);
  });

  it('sync-status-files: the table of all families (svc sync --status) drops them (claim held)', async () => {
    const target = join(tempDir(), `copy.${engine}`);
    await makeCopy(engine, target, { family: 'accounts', filter: `not json ${hostile}`, fields: hostile });
    const r = await offline(['sync', '--into', target, '--status'], true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(r.stdout).not.toMatch(ACTING);
  });
});

describe.each(['sqlite', 'duckdb'] as const)('attack: a hostile file never hangs --status (%s)', (engine) => {
  it('sync-status-files: the family named by a view that never ends: --status answers (or refuses) within 5 s', async () => {
    const target = join(tempDir(), `copy.${engine}`);
    const view =
      engine === 'sqlite'
        ? 'CREATE VIEW accounts AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x AS ID FROM n'
        : 'CREATE VIEW accounts AS SELECT a.range AS ID FROM range(1000000000) a, range(1000000000) b';
    await makeCopy(engine, target, { family: 'accounts', filter: '{"filter":[],"filterJson":[]}', fields: '' }, view);
    // A child process: better-sqlite3 runs on this thread, so an endless count could not be raced in process.
    const started = Date.now();
    const r = spawnSync(process.execPath, ['bin/svc.js', 'sync', '--into', target, '--status', '-o', 'json'], { timeout: 5_000, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const took = Date.now() - started;
    expect({ killedBy: r.signal, took: took < 5_000 }, `stderr: ${r.stderr}`).toEqual({ killedBy: null, took: true });
    expect([0, 1]).toContain(r.status);
  }, 15_000);
});

describe('attack: --status on a DuckDB copy whose writer was killed with -9 (a .wal left behind)', () => {
  it('sync-status-files: the .duckdb and its .wal keep their bytes, and the state written before the kill is shown', async () => {
    const target = join(tempDir(), 'killed.duckdb');
    await makeCopy('duckdb', target, { family: 'accounts', filter: '{"filter":[],"filterJson":[]}', fields: '' });
    const script = `
      import { DuckDBInstance } from '@duckdb/node-api';
      const i = await DuckDBInstance.create(${JSON.stringify(target)});
      const c = await i.connect();
      await c.run("SET checkpoint_threshold = '1GB'");
      await c.run("INSERT INTO accounts SELECT range, 'n' || range FROM range(1, 1001)");
      await c.run("UPDATE _svc_sync SET runs = 2");
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(existsSync(`${target}.wal`)).toBe(true);
    const before = { db: readFileSync(target), wal: readFileSync(`${target}.wal`) };
    const r = await offline(['sync', '--into', target, '--status', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ family: 'accounts', rows: 1000, runs: 2 }]);
    expect(readFileSync(target).equals(before.db)).toBe(true);
    expect(existsSync(`${target}.wal`) && readFileSync(`${target}.wal`).equals(before.wal)).toBe(true);
  });
});

describe('attack: --status on a SQLite copy another program holds (BEGIN EXCLUSIVE in a child process)', () => {
  it('sync-status-files: refuses at once, exit 1, one line saying it is in use (as a sync does: busy_timeout 0), not after a silent wait', async () => {
    const { spawn } = await import('node:child_process');
    const target = join(tempDir(), 'held.sqlite');
    await makeCopy('sqlite', target, { family: 'accounts', filter: '{"filter":[],"filterJson":[]}', fields: '' });
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(${JSON.stringify(target)});
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN EXCLUSIVE');
      db.exec("INSERT INTO accounts VALUES (1, 'x')");
      process.stdout.write('held\\n');
      process.stdin.on('data', () => {});
      process.stdin.on('end', () => { db.exec('ROLLBACK'); db.close(); });`;
    const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
        child.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
      });
      const started = performance.now();
      const r = await offline(['sync', '--into', target, '--status']);
      const took = performance.now() - started;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^svc: .*held\.sqlite is in use by another program .*\n$/);
      expect(took, 'milliseconds before the refusal').toBeLessThan(2000);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.on('close', resolve));
    }
  });
});

describe('attack: --status on a SQLite copy with a hot journal (journal_mode=DELETE, writer killed with -9)', () => {
  it('sync-status-files: exit 1 names the cause (a hot journal a normal open rolls back), not "not a SQLite database"; bytes kept', async () => {
    const target = join(tempDir(), 'hot.sqlite');
    await makeCopy('sqlite', target, { family: 'accounts', filter: '{"filter":[],"filterJson":[]}', fields: '' });
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(${JSON.stringify(target)});
      db.pragma('journal_mode = DELETE');
      db.pragma('cache_size = 2');
      db.exec('BEGIN');
      const ins = db.prepare('INSERT INTO accounts VALUES (?, ?)');
      for (let i = 1; i <= 3000; i++) ins.run(i, 'x'.repeat(500));
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(existsSync(`${target}-journal`)).toBe(true);
    const before = { db: readFileSync(target), journal: readFileSync(`${target}-journal`) };
    const r = await offline(['sync', '--into', target, '--status']);
    expect(readFileSync(target).equals(before.db)).toBe(true);
    expect(readFileSync(`${target}-journal`).equals(before.journal)).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).not.toMatch(/is not a SQLite database/);
  });
});

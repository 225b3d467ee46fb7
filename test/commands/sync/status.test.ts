/**
 * What a copy holds, read without syncing: `--status` (svc sync and svc
 * <family> sync) shows each family's rows, state, last run, cursor and
 * remembered settings without asking the service or writing the file; `svc
 * sync --into FILE` without families keeps every family the file holds in
 * step. Hostile targets: missing, not a database, a state table edited by
 * hand (unknown or hostile family names, a filter that is not JSON).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { syncSpec } from '../../../src/commands/sync/command.js';
import { findFamily } from '../../../src/catalogue/index.js';
import { syncVerb } from '../../../src/commands/records/sync/command.js';
import { UsageError } from '../../../src/errors.js';
import { sandboxCli, svc } from '../../helpers/cli.js';
import { create, readCopy, remove, tempDir, update } from '../../sync/support.js';
import { signalProcesses } from '../../watch/support.js';

const { sandbox, run } = sandboxCli();

const accounts = findFamily('accounts');
if (!accounts) throw new Error('no accounts in the catalogue');
const accountsSync = syncVerb.spec(accounts);

function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

/** Runs svc with no service and no credentials at all: what --status needs is the file alone. */
const offline = (argv: string[], tty = false) => svc(argv, { env: { NO_COLOR: '1' }, tty, columns: 400 });

describe('sync --status and svc sync without families: flags', () => {
  it('svc sync takes no family (every family the file holds); --status refuses what would change a run, in one line', () => {
    expect(syncSpec.toOptions({ args: [[]], flags: { into: 'a.sqlite' } })).toMatchObject({ families: [] });
    for (const [flag, value] of [
      ['reset', true],
      ['keepDeleted', true],
      ['lag', '1m'],
      ['reconcileEvery', '2'],
      ['pageSize', '10'],
      ['concurrency', '2'],
      ['progress', true],
      ['quiet', true],
    ] as const) {
      const message = refusal(() => syncSpec.toOptions({ args: [['accounts']], flags: { into: 'a.sqlite', status: true, [flag]: value } }));
      expect(message).toMatch(/^--status only reads the copy and syncs nothing, so it takes no --[a-z-]+; run without --status to sync$/);
    }
    expect(refusal(() => accountsSync.toOptions({ args: [], flags: { into: 'a.sqlite', status: true, filter: ['type = CUSTOMER'] } }))).toMatch(/takes no filter flags \(the remembered ones are shown\)/);
    expect(refusal(() => accountsSync.toOptions({ args: [], flags: { into: 'a.sqlite', status: true, fields: 'ID' } }))).toMatch(/takes no --fields/);
    expect(refusal(() => accountsSync.toOptions({ args: [], flags: { into: 'a.sqlite', status: true, explain: true } }))).toMatch(/takes no --explain/);
  });
});

describe.each(['sqlite', 'duckdb'])('sync --status and svc sync without families, %s', (engine) => {
  it('shows each family held without asking the service or changing the file; svc sync with no family syncs them all', async () => {
    const s = sandbox();
    const target = join(tempDir(), `copy.${engine}`);
    expect((await run(['accounts', 'sync', '--into', target, '--filter', 'type = CUSTOMER', '--fields', 'ID,lastname,type,lastmodified'])).code).toBe(0);
    const doomed = await create(s, 'contacts', { lastname: 'Short-lived', firstname: 'Kurt' });
    expect((await run(['contacts', 'sync', '--into', target, '--keep-deleted'])).code).toBe(0);
    const before = readFileSync(target);

    let arrivals = 0;
    s.sandbox.hooks.onArrival = () => void arrivals++;
    const all = await offline(['sync', '--into', target, '--status', '-o', 'json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toBe('');
    const statuses = JSON.parse(all.stdout) as Record<string, unknown>[];
    expect(statuses.map((x) => x.family)).toEqual(['accounts', 'contacts']);
    const copy = await readCopy(target, 'accounts');
    expect(statuses[0]).toEqual({
      family: 'accounts',
      rows: copy.rows.length,
      deleted: null,
      phase: 'ready',
      afterId: null,
      cursor: Number(copy.state.cursor),
      runs: 1,
      lastRun: Number(copy.state.updated_at),
      lastReconcile: Number(copy.state.last_reconcile),
      runsSinceReconcile: 0,
      filter: { filter: ['type = CUSTOMER'], filterJson: [] },
      fields: 'ID,lastname,type,lastmodified',
      keepDeleted: false,
      svcVersion: copy.state.svc_version,
      running: null,
    });
    expect(statuses[1]).toMatchObject({ family: 'contacts', rows: (await readCopy(target, 'contacts')).rows.length, deleted: 0, keepDeleted: true, fields: '' });

    // One family, as an object; a terminal gets labelled lines with ISO times in UTC.
    const one = await offline(['accounts', 'sync', '--into', target, '--status', '-o', 'json']);
    expect(JSON.parse(one.stdout)).toEqual(statuses[0]);
    const lines = await offline(['accounts', 'sync', '--into', target, '--status'], true);
    expect(lines.code, lines.stderr).toBe(0);
    expect(lines.stdout).toMatch(/^family: +accounts\nrows: +\d+\nstate: +whole\nlast run: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\ncursor: +\d{4}-.*Z\nruns: +1\nIDs compared: +\d{4}-.*Z\nfilter: +--filter 'type = CUSTOMER'\nfields: +ID,lastname,type,lastmodified\n$/);
    const table = await offline(['sync', '--into', target, '--status', '-o', 'table']);
    expect(table.stdout).toMatch(/^FAMILY +ROWS +STATE +LAST RUN +CURSOR +RUNS +IDS COMPARED +FILTER +FIELDS\naccounts .*\ncontacts +\d+ +whole .* no filter +every field\n$/);
    expect(arrivals).toBe(0);
    expect(readFileSync(target).equals(before)).toBe(true);
    s.sandbox.hooks.onArrival = undefined;

    // Without families: every family held, in name order, each with what it remembers.
    const fresh = await create(s, 'accounts', { lastname: 'Status customer', currency: 'EUR', type: 1 });
    const someContact = Number((await readCopy(target, 'contacts')).rows[0]?.ID);
    await update(s, 'contacts', someContact, { city: `Basel ${engine}` });
    await remove(s, 'contacts', doomed);
    const synced = await run(['sync', '--into', target, '-o', 'json']);
    expect(synced.code, synced.stderr).toBe(0);
    const summaries = JSON.parse(synced.stdout) as Record<string, unknown>[];
    expect(summaries.map((x) => x.family)).toEqual(['accounts', 'contacts']);
    expect(summaries[0]).toMatchObject({ inserted: 1 });
    expect(summaries[1]).toMatchObject({ updated: 1, deleted: 1 });
    expect((await readCopy(target, 'accounts')).rows.some((r) => r.ID === fresh)).toBe(true);
    const after = JSON.parse((await offline(['sync', '--into', target, '--status', '-o', 'json'])).stdout) as Record<string, unknown>[];
    expect(after.map((x) => x.runs)).toEqual([2, 2]);
    expect(after[1]).toMatchObject({ deleted: 1, rows: Number(statuses[1]?.rows) - 1 });
    expect((await offline(['contacts', 'sync', '--into', target, '--status'], true)).stdout).toMatch(/^rows: +\d+ \(\+1 marked deleted\)$/m);
    expect(after[0]?.lastRun).toBeGreaterThanOrEqual(Number(statuses[0]?.lastRun));
  }, 60_000);

  it('a family the file does not hold: exit 1 naming what it holds; a missing file: exit 2, not made', async () => {
    const target = join(tempDir(), `copy.${engine}`);
    expect((await run(['accounts', 'sync', '--into', target])).code).toBe(0);
    const missing = await offline(['contacts', 'sync', '--into', target, '--status']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^svc: .*copy\.\w+ holds no copy of contacts \(it holds accounts\); make one with svc contacts sync --into .*\n$/);
    expect((await offline(['sync', '--into', target, 'accounts', 'tasks', '--status'])).stderr).toMatch(/holds no copy of tasks/);

    const nowhere = join(tempDir(), `none.${engine}`);
    for (const argv of [['sync', '--into', nowhere, '--status'], ['accounts', 'sync', '--into', nowhere, '--status'], ['sync', '--into', nowhere]]) {
      const r = await offline(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^svc: .*none\.\w+ does not exist.*\n$/);
      expect(existsSync(nowhere)).toBe(false);
    }
  }, 60_000);

  it('a file that holds no copy: --status shows none, svc sync without families refuses (exit 2); neither writes', async () => {
    const target = join(tempDir(), `empty.${engine}`);
    writeFileSync(target, '');
    expect(JSON.parse((await offline(['sync', '--into', target, '--status', '-o', 'json'])).stdout)).toEqual([]);
    const r = await offline(['sync', '--into', target]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: .*empty\.\w+ holds no copy yet; name the families to copy: svc sync --into .* accounts contacts\n$/);
    expect(readFileSync(target).length).toBe(0);
    expect(existsSync(`${target}-wal`) || existsSync(`${target}.wal`)).toBe(false);
  });

  it('a file that is not a database: exit 1, bytes untouched', async () => {
    const target = join(tempDir(), `junk.${engine}`);
    writeFileSync(target, 'not a database at all\n'.repeat(300));
    const bytes = readFileSync(target);
    for (const argv of [['sync', '--into', target, '--status'], ['sync', '--into', target]]) {
      const r = await offline(argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^svc: .*junk\\.${engine} is not a ${engine === 'sqlite' ? 'SQLite' : 'DuckDB'} database svc can use .*\\n$`));
    }
    expect(readFileSync(target).equals(bytes)).toBe(true);
  });
});

describe('sync --status on a state table edited by hand (SQLite)', () => {
  it('shows what is there, hostile names and a filter that is not JSON included; svc sync without families refuses an unknown family (exit 1) and syncs nothing', async () => {
    const target = join(tempDir(), 'edited.sqlite');
    expect((await run(['accounts', 'sync', '--into', target])).code).toBe(0);
    const db = new Database(target);
    const row = db.prepare("SELECT * FROM _svc_sync WHERE family = 'accounts'").get() as Record<string, unknown>;
    const insert = db.prepare(`INSERT INTO _svc_sync VALUES (${Object.keys(row).map(() => '?').join(', ')})`);
    const hostile = ['__proto__', 'x"; DROP TABLE accounts; --', 'constructor', '\u202eevil\u0007'];
    for (const family of hostile) insert.run(...Object.values({ ...row, family, filter: 'not json {', phase: 'initial', after_id: 42 }));
    db.close();
    const before = readFileSync(target);

    const r = await offline(['sync', '--into', target, '--status', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const statuses = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(statuses.map((x) => x.family).sort()).toEqual(['accounts', ...hostile].sort());
    for (const s of statuses.filter((x) => x.family !== 'accounts')) expect(s).toMatchObject({ rows: null, filter: 'not json {', phase: 'initial', afterId: 42 });
    expect(Object.getPrototypeOf(statuses)).toBe(Array.prototype);
    // The table: one line a family; control and direction characters do not reach the terminal.
    const table = await offline(['sync', '--into', target, '--status'], true);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(1 + 1 + hostile.length);
    expect(table.stdout).not.toMatch(/[\u0007\u202e]/);
    expect(table.stdout).toMatch(/\?\s+first pass, up to ID 42/);

    const refused = await offline(['sync', '--into', target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc: .*edited\.sqlite keeps a copy named '.*', which is not a family svc knows .*; name the families to sync\n$/);
    expect(readFileSync(target).equals(before)).toBe(true);
    // The family named still syncs.
    expect((await run(['sync', '--into', target, 'accounts'])).code).toBe(0);
  }, 60_000);
});

/** A process of Node's that runs until killed, and its pid; or, with `exited`, one that has ended. */
async function nodeProcess(exited: boolean): Promise<{ pid: number; kill(): void }> {
  const child = spawn(process.execPath, ['-e', exited ? '0' : 'process.stdout.write("up"); setInterval(() => {}, 1e6)'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error('no pid');
  if (exited) await new Promise((r) => child.on('close', r));
  else await new Promise((r) => child.stdout.once('data', r));
  return { pid, kill: () => void child.kill('SIGKILL') };
}

describe('sync --status while a sync runs (SQLite)', () => {
  it('names the run that holds the file, on stderr and as running in the JSON; what it has committed is shown', async () => {
    const s = sandbox();
    const target = join(tempDir(), 'busy.sqlite');
    let queries = 0;
    // The first sync held at its eighth request of accounts: five pages of two, a transaction, are in the copy.
    const stalled = new Promise<void>((resolve) => {
      s.sandbox.hooks.onArrival = (method, url) => {
        if (method !== 'POST' || !url.includes('/api/v1/accounts') || ++queries !== 8) return;
        s.sandbox.hooks.failNext({ fault: { delayMs: 60_000 } });
        resolve();
      };
    });
    const processes = signalProcesses();
    const syncing = run(['accounts', 'sync', '--into', target, '--page-size', '2', '--concurrency', '1'], { processes });
    await Promise.race([stalled, syncing.then((r) => Promise.reject(new Error(`the sync ended first: ${r.stderr}`)))]);

    const during = await offline(['sync', '--into', target, '--status', '-o', 'json']);
    expect(during.code, during.stderr).toBe(0);
    const note = new RegExp(`^svc: a sync into .*busy\\.sqlite is running \\(pid ${process.pid} \\('svc accounts sync --into .*busy\\.sqlite', since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)\\); shown is what it has committed so far\\n$`);
    expect(during.stderr).toMatch(note);
    const [status] = JSON.parse(during.stdout) as Record<string, unknown>[];
    expect(status).toMatchObject({ family: 'accounts', phase: 'initial', running: { pid: process.pid, host: hostname(), command: `svc accounts sync --into ${target}` } });
    expect(Number(status?.rows)).toBeGreaterThanOrEqual(10);
    const since = Number((status?.running as { since: number }).since);
    expect(Math.abs(since - Date.now() / 1000)).toBeLessThan(300);
    const lines = await offline(['accounts', 'sync', '--into', target, '--status'], true);
    expect(lines.stderr).toMatch(note);
    expect(lines.stdout).toMatch(/^state: +first pass, up to ID \d+$/m);

    processes.raise('SIGINT');
    expect((await syncing).code).toBe(130);
    const after = await offline(['sync', '--into', target, '--status', '-o', 'json']);
    expect(after.stderr).toBe('');
    expect((JSON.parse(after.stdout) as Record<string, unknown>[])[0]).toMatchObject({ running: null });
  }, 60_000);

  it('another process holding the lock is named; a lock left by a process that ended is not; one that does not say is', async () => {
    const target = join(tempDir(), 'locked.sqlite');
    expect((await run(['accounts', 'sync', '--into', target])).code).toBe(0);
    const lock = `${target}.svc-lock`;
    const status = async () => {
      const r = await offline(['sync', '--into', target, '--status', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return { stderr: r.stderr, running: (JSON.parse(r.stdout) as Record<string, unknown>[])[0]?.running };
    };
    const live = await nodeProcess(false);
    try {
      writeFileSync(lock, `${JSON.stringify({ pid: live.pid, host: hostname(), since: '2026-11-24T10:00:00.000Z', what: `svc sync --into ${target}` })}\n`);
      expect(await status()).toEqual({
        stderr: expect.stringMatching(new RegExp(`^svc: a sync into .* is running \\(pid ${live.pid} \\('svc sync --into .*', since 2026-11-24T10:00:00.000Z\\)\\); shown is what it has committed so far\\n$`)),
        running: { pid: live.pid, host: hostname(), since: Date.parse('2026-11-24T10:00:00Z') / 1000, command: `svc sync --into ${target}` },
      });
      // Another machine's: svc cannot see its processes, so it is taken as running; the host is named.
      writeFileSync(lock, JSON.stringify({ pid: 7, host: 'batch-07\u001b[31m', since: 'yesterday', what: 'svc sync' }));
      const other = await status();
      expect(other.running).toEqual({ pid: 7, host: 'batch-07\u001b[31m', since: null, command: 'svc sync' });
      expect(other.stderr).toMatch(/^svc: a sync into .* is running \(pid 7 on batch-07\?\[31m \('svc sync', since yesterday\)\); /);
    } finally {
      live.kill();
    }
    const gone = await nodeProcess(true);
    writeFileSync(lock, JSON.stringify({ pid: gone.pid, host: hostname(), since: '2026-11-24T10:00:00.000Z', what: 'svc sync' }));
    expect(await status()).toEqual({ stderr: '', running: null });
    writeFileSync(lock, '{"__proto__": {"pid": 1}}');
    expect(await status()).toEqual({
      stderr: expect.stringMatching(/^svc: a sync into .* may be running \(.*locked\.sqlite\.svc-lock does not say which process holds it\); shown is what it has committed so far\n$/),
      running: { pid: null, host: null, since: null, command: null },
    });
    // A sync refuses the same lock, as --status reported.
    expect((await run(['accounts', 'sync', '--into', target])).code).toBe(1);
  }, 60_000);
});

/**
 * What a copy holds, read without syncing: `--status` (svc sync and svc
 * <family> sync) shows each family's rows, state, last run, cursor and
 * remembered settings without asking the service or writing the file; `svc
 * sync --into FILE` without families keeps every family the file holds in
 * step. Hostile targets: missing, not a database, a state table edited by
 * hand (unknown or hostile family names, a filter that is not JSON).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { syncSpec } from '../../../src/commands/sync/command.js';
import { findFamily } from '../../../src/catalogue/index.js';
import { syncVerb } from '../../../src/commands/records/sync/command.js';
import { UsageError } from '../../../src/errors.js';
import { sandboxCli, svc } from '../../helpers/cli.js';
import { create, readCopy, remove, tempDir, update } from '../../sync/support.js';

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

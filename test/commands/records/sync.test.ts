/**
 * `svc <family> sync` against the sandbox: a first sync, then inserts,
 * updates, deletes and an edit that leaves the filter, then a second sync:
 * the copy equals `query --all` of the same filter and fields, row for row,
 * and the second run fetched only the changed records (the sandbox's request
 * log, replayed). SQLite and DuckDB. Flags → options without a server.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncVerb } from '../../../src/commands/records/sync/command.js';
import type { SyncOptions } from '../../../src/commands/records/sync/options.js';
import { table } from '../../../src/sandbox/schema.js';
import { sandboxCli } from '../../helpers/cli.js';
import { create, expectedRows, idsOnly, insertAccounts, queryBodies, readCopy, remove, tempDir, update } from '../../sync/support.js';
import { optionsOf, refusal } from './support.js';

let clock = Date.now();
const { sandbox, run } = sandboxCli({ now: () => clock });

const FIELDS = 'ID,lastname,type,locked,lastmodified,description,name=firstname';
const FILTER = 'type = CUSTOMER';

/** Rows the replayed query bodies answer now: what the run fetched (the copy is unchanged since). */
async function replayedRecords(bodies: readonly Record<string, unknown>[]): Promise<{ full: number; ids: number }> {
  let full = 0;
  let ids = 0;
  for (const body of bodies) {
    if (body.count === true || (Array.isArray(body.sort) && body.sort[0] === '-lastmodified')) continue;
    const r = await sandbox.call('POST', 'api/v1/accounts', { json: body });
    const n = (r.json<unknown[]>() ?? []).length;
    if (idsOnly(body)) ids += n;
    else full += n;
  }
  return { full, ids };
}

describe('accounts sync: flags', () => {
  it('takes --into with a database extension, --lag, --reconcile-every, --concurrency', () => {
    const o = optionsOf<SyncOptions>(syncVerb, 'accounts', { flags: { into: 'x.duckdb', lag: '90s', reconcileEvery: '3', concurrency: '4', fields: 'ID,lastname' } });
    expect(o.sync).toMatchObject({ into: 'x.duckdb', lagSeconds: 90, reconcileEvery: 3, concurrency: 4, pageSize: 1000, reset: false });
    expect(o.fields).toBe('ID,lastname');
    expect(optionsOf<SyncOptions>(syncVerb, 'accounts', { flags: { into: 'x.db', lag: '0' } }).sync.lagSeconds).toBe(0);
  });

  it.each([
    [{}, /sync needs --into FILE/],
    [{ into: 'copy.csv' }, /name a \.sqlite, \.sqlite3 or \.db file \(SQLite\) or a \.duckdb file/],
    [{ into: 'c.sqlite', lag: 'soon' }, /invalid --lag 'soon'/],
    [{ into: 'c.sqlite', concurrency: '0' }, /--concurrency takes a whole number from 1 to 32/],
    [{ into: 'c.sqlite', reconcileEvery: '0' }, /--reconcile-every takes a whole number/],
    [{ into: 'c.sqlite', fields: 'ID,nosuch' }, /unknown field 'nosuch' on accounts/],
    [{ into: 'c.sqlite', progress: true, quiet: true }, /--progress and --quiet/],
  ])('refuses %j in one line', (flags, message) => {
    const m = refusal(syncVerb, 'accounts', { flags });
    expect(m).toMatch(message);
    expect(m).not.toContain('\n');
  });
});

describe.each(['sqlite', 'duckdb'])('accounts sync into %s', (engine) => {
  it('a second sync after inserts, updates, deletes and a filter-leaving edit fetches only those, and the copy equals query --all', async () => {
    const s = sandbox();
    const target = join(tempDir(), `copy.${engine}`);
    // The sandbox's clock an hour on: a marker record outside the filter sets the cursor after every seeded record.
    clock += 3_600_000;
    await create(s, 'accounts', { lastname: 'Marker', currency: 'EUR', type: 2 });
    // Seeded accounts have dependants; these two can be deleted.
    const doomed = [await create(s, 'accounts', { lastname: 'Doomed 1', currency: 'EUR', type: 1 }), await create(s, 'accounts', { lastname: 'Doomed 2', currency: 'EUR', type: 1 })];
    // svc's clock is the sandbox's, as a client's and a service's are on one network (a service clock hours ahead
    // would only make svc fetch more: a stamp ahead of svc's clock is never its cursor).
    const at = { now: (): number => clock };
    const first = await run(['accounts', 'sync', '--into', target, '--filter', FILTER, '--fields', FIELDS, '-o', 'json'], at);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    const one = JSON.parse(first.stdout) as Record<string, number>;
    const query = (): Promise<Awaited<ReturnType<typeof run>>> => run(['accounts', 'query', '--all', '--filter', FILTER, '--fields', FIELDS, '-o', 'json']);
    let copy = await readCopy(target, 'accounts');
    const before = expectedRows(await query(), copy.columns);
    expect(copy.rows).toEqual(before);
    expect(one).toMatchObject({ family: 'accounts', inserted: before.length, updated: 0, deleted: 0 });
    expect(before.length).toBeGreaterThan(3);

    clock += 3_600_000;
    const added = [
      await create(s, 'accounts', { lastname: 'New one', currency: 'EUR', type: 1, description: 'quote " and\nline' }),
      await create(s, 'accounts', { lastname: 'New two', currency: 'USD', type: 1, locked: 1 }),
      await create(s, 'accounts', { lastname: 'Ünïcødé 😀', currency: 'EUR', type: 1 }),
    ];
    await create(s, 'accounts', { lastname: 'Not a customer', currency: 'EUR', type: 2 });
    const [u1, u2, leaves] = before.map((r) => Number(r.ID));
    const [d1, d2] = doomed;
    await update(s, 'accounts', u1!, { lastname: 'Renamed' });
    await update(s, 'accounts', u2!, { description: '', firstname: 'Ann' });
    await update(s, 'accounts', leaves!, { type: 0 });
    await remove(s, 'accounts', d1!);
    await remove(s, 'accounts', d2!);

    s.sandbox.hooks.requests.length = 0;
    const second = await run(['accounts', 'sync', '--into', target, '-o', 'json'], at);
    expect(second.code, second.stderr).toBe(0);
    const bodies = queryBodies(s, 'accounts');
    const summary = JSON.parse(second.stdout) as Record<string, number>;
    expect(summary).toMatchObject({ family: 'accounts', inserted: 3, updated: 2, deleted: 3, pages: bodies.length });
    // Fetched in full: the five changed records that match; the rest are IDs only (filter leavers, reconcile).
    const fetched = await replayedRecords(bodies);
    expect(fetched.full).toBe(5);
    // The changed records, the changed IDs without the filter, a count, the IDs to compare; no scan for the latest lastmodified.
    expect(bodies.length).toBeLessThanOrEqual(4);
    expect(bodies.filter((b) => Array.isArray(b.sort) && b.sort[0] === '-lastmodified')).toEqual([]);
    copy = await readCopy(target, 'accounts');
    const after = expectedRows(await query(), copy.columns);
    expect(copy.rows).toEqual(after);
    expect(after.map((r) => r.ID)).toEqual(expect.arrayContaining(added));
    expect(copy.state).toMatchObject({ phase: 'ready', fields: FIELDS });
    expect(Number(copy.state.runs)).toBe(2);

    // Nothing changed since: the lag window's records are fetched again, and nothing is counted as changed.
    const third = await run(['accounts', 'sync', '--into', target, '-o', 'json'], at);
    expect(JSON.parse(third.stdout)).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
    expect((await readCopy(target, 'accounts')).rows).toEqual(after);
  }, 60_000);
});

describe('the cursor of a later run', () => {
  it('is the latest lastmodified it fetched less the scan\'s time: a change made behind the scan while it runs reaches the next run', async () => {
    const s = sandbox();
    const target = join(tempDir(), 'cursor.sqlite');
    // svc's clocks move with the sandbox's: the wall clock, and the one it measures the scan on.
    const at = { now: (): number => clock, monotonic: (): number => clock };
    // lastmodified is not copied, and a column takes the name svc would give it on the page: svc fetches it under another.
    const args = ['accounts', 'sync', '--into', target, '--filter', "lastname ~~ 'Cursor %'", '--fields', 'ID,lastname,description,__svc_lastmodified=firstname', '--page-size', '1', '--lag', '0', '-o', 'json'];
    clock += 3_600_000;
    const [a, b, c] = [await create(s, 'accounts', { lastname: 'Cursor A', currency: 'EUR', type: 1, firstname: 'Ann' }), await create(s, 'accounts', { lastname: 'Cursor B', currency: 'EUR', type: 1 }), await create(s, 'accounts', { lastname: 'Cursor C', currency: 'EUR', type: 1 })];
    const first = await run(args, at);
    expect(first.code, first.stderr).toBe(0);
    clock += 3_600_000;
    for (const id of [a, b, c]) await update(s, 'accounts', id!, { description: 'second' });
    const scanStart = Math.floor(clock / 1000);
    // The scan asks one record a page, in ID order. As it asks for B's page (A fetched), A changes again, ten minutes
    // on; as it asks for C's, C changes, ten more minutes on: the scan fetches C stamped after A's second change.
    const touch = (id: number, text: string): void => {
      clock += 600_000;
      s.sandbox.db.prepare(`UPDATE ${table('demo', 'accounts')} SET description = ?, lastmodified = ? WHERE ID = ?`).run(text, Math.floor(clock / 1000), id);
    };
    let asked = 0;
    s.sandbox.hooks.requests.length = 0;
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !url.endsWith('/api/v1/accounts')) return;
      asked++;
      if (asked === 2) touch(a!, 'behind the scan');
      if (asked === 3) touch(c!, 'ahead of the scan');
    };
    const second = await run(args, at);
    s.sandbox.hooks.onArrival = undefined;
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout) as { updated: number; cursor: number };
    expect(summary.updated).toBe(3);
    // C's stamp (scan start + 20 minutes) less the scan's 20 minutes on the clock svc reads: at or before A's change.
    expect(summary.cursor).toBe(scanStart);
    expect(queryBodies(s, 'accounts').filter((body) => Array.isArray(body.sort) && body.sort[0] === '-lastmodified')).toEqual([]);
    let copy = await readCopy(target, 'accounts');
    expect(copy.rows.find((r) => r.ID === a)?.description).toBe('second');
    const third = await run(args, at);
    expect(third.code, third.stderr).toBe(0);
    copy = await readCopy(target, 'accounts');
    expect(copy.rows.find((r) => r.ID === a)).toMatchObject({ description: 'behind the scan', __svc_lastmodified: 'Ann' });
    expect(copy.columns.map((col) => col.name)).toEqual(['ID', 'lastname', 'description', '__svc_lastmodified']);
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--filter', "lastname ~~ 'Cursor %'", '--fields', 'ID,lastname,description,__svc_lastmodified=firstname', '-o', 'json']), copy.columns));
  }, 30_000);
});

describe('money', () => {
  it('is DECIMAL(38,10) in DuckDB, exact from the service\'s decimal text; REAL in SQLite, the same double', async () => {
    const s = sandbox();
    const dir = tempDir();
    const id = await create(s, 'items', { name: 'Priced', itemnum: `P-${Date.now()}`, sellingprice: 19.99, purchaseprice: 0.1 });
    for (const engine of ['duckdb', 'sqlite']) {
      const target = join(dir, `items.${engine}`);
      const r = await run(['items', 'sync', '--into', target, '--fields', 'ID,name,sellingprice,purchaseprice,weight', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const copy = await readCopy(target, 'items');
      expect(copy.columns.map((c) => c.kind)).toEqual(['int', 'text', 'money', 'money', 'double']);
      expect(copy.rows).toEqual(expectedRows(await run(['items', 'query', '--all', '--fields', 'ID,name,sellingprice,purchaseprice,weight', '-o', 'json']), copy.columns));
    }
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(join(dir, 'items.duckdb'));
    const conn = await db.connect();
    const row = (await conn.runAndReadAll(`SELECT typeof(sellingprice) AS t, CAST(sellingprice AS VARCHAR) AS v, sellingprice + purchaseprice = 20.09 AS exact FROM items WHERE ID = ${id}`)).getRowObjectsJS()[0];
    conn.closeSync();
    db.closeSync();
    expect(row).toEqual({ t: 'DECIMAL(38,10)', v: '19.9900000000', exact: true });
  });
});

describe('deletions found by counting', () => {
  it('deletions scattered through many ranges, counted and split down to small ranges, leave the copy; an equal count costs one request', async () => {
    const s = sandbox();
    const target = join(tempDir(), 'r.sqlite');
    const ids = insertAccounts(s, 900, Math.floor(clock / 1000) - 86_400, 'Counted');
    const env = { SVC_SYNC_LEAF: '40' };
    const args = ['accounts', 'sync', '--into', target, '--fields', 'ID,lastname', '--concurrency', '3', '-o', 'json'];
    expect((await run(args, { env })).code).toBe(0);
    s.sandbox.hooks.requests.length = 0;
    expect(JSON.parse((await run(args, { env })).stdout)).toMatchObject({ deleted: 0 });
    // The whole range is counted bare: an ID condition would make the service read every record.
    expect(queryBodies(s, 'accounts').filter((b) => b.count === true)).toEqual([{ count: true }]);
    const gone = [ids[3], ids[250], ids[251], ids[600], ids[899]].map(Number);
    for (const id of gone) s.sandbox.db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID = ?`).run(id);
    s.sandbox.hooks.requests.length = 0;
    const r = await run(args, { env });
    expect(JSON.parse(r.stdout)).toMatchObject({ deleted: 5 });
    const bodies = queryBodies(s, 'accounts');
    expect(bodies.filter((b) => b.count === true).length).toBeGreaterThan(8);
    // Only the ranges holding a deletion are compared ID by ID: far fewer IDs than the 960 held.
    const compared = await Promise.all(bodies.filter(idsOnly).map(async (b) => (await s.call('POST', 'api/v1/accounts', { json: b })).json<unknown[]>().length));
    expect(compared.reduce((a, b) => a + b, 0)).toBeLessThan(400);
    const copy = await readCopy(target, 'accounts');
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--fields', 'ID,lastname', '-o', 'json']), copy.columns));
  }, 30_000);
});

describe('--explain and --print-request', () => {
  it('print the filter and the first page body, and send nothing', async () => {
    const s = sandbox();
    s.sandbox.hooks.requests.length = 0;
    const target = join(tempDir(), 'never.sqlite');
    const explain = await run(['accounts', 'sync', '--into', target, '--filter', 'type = CUSTOMER', '--explain']);
    expect(explain.code, explain.stderr).toBe(0);
    expect(JSON.parse(explain.stdout)).toEqual({ type: 1 });
    const body = await run(['accounts', 'sync', '--into', target, '--filter', 'type = CUSTOMER', '--fields', 'lastname', '--print-request']);
    expect(JSON.parse(body.stdout)).toMatchObject({ sort: ['+ID'], limit: 1000, fields: { ID: 'ID', lastname: 'lastname' } });
    expect(queryBodies(s, 'accounts')).toEqual([]);
    expect(existsSync(target)).toBe(false);
  });
});

/**
 * A later run fetches lastmodified under a key of its own when --fields does
 * not copy it (`__svc_lastmodified`, `_` appended while a column has that
 * name in any case), or under the column that copies it. Whatever the
 * columns are called, the key never reaches the table, no column loses its
 * value to it, and the cursor moves with the changes fetched.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { create, expectedRows, queryBodies, readCopy, tempDir, update } from '../sync/support.js';

let clock = Date.now() + 7_200_000;
const { sandbox, run } = sandboxCli({ now: () => clock });

const CASES: readonly (readonly [string, readonly string[]])[] = [
  ['ID,lastname,__SVC_LASTMODIFIED=firstname', ['ID', 'lastname', '__SVC_LASTMODIFIED']],
  ['ID,lastname,__svc_lastmodified=firstname,__Svc_LastModified_=description', ['ID', 'lastname', '__svc_lastmodified', '__Svc_LastModified_']],
  ['ID,lm=lastmodified,lastname', ['ID', 'lm', 'lastname']],
  ['ID,lastname,lastmodified=firstname', ['ID', 'lastname', 'lastmodified']],
  ['ID,lastname,stamp=lastmodified,lastmodified=description', ['ID', 'lastname', 'stamp', 'lastmodified']],
];

let n = 0;
describe.each(['sqlite', 'duckdb'])('the key lastmodified is fetched under, into %s', (engine) => {
  it.each(CASES)('--fields %s', async (fields, names) => {
    const s = sandbox();
    const prefix = `Alias ${engine} ${++n}`;
    const filter = `lastname ~~ '${prefix}%'`;
    const file = join(tempDir(), `alias.${engine}`);
    const args = ['accounts', 'sync', '--into', file, '--filter', filter, '--fields', fields, '--lag', '0', '-o', 'json'];
    clock += 60_000;
    const a = await create(s, 'accounts', { lastname: `${prefix} A`, firstname: 'Ann', description: 'first', currency: 'EUR', type: 1 });
    const b = await create(s, 'accounts', { lastname: `${prefix} B`, firstname: 'Bob', description: 'first', currency: 'EUR', type: 1 });
    const first = await run(args, { now: () => clock, monotonic: () => clock });
    expect(first.code, first.stderr).toBe(0);
    const cursor1 = Number(JSON.parse(first.stdout).cursor);
    clock += 600_000;
    await update(s, 'accounts', a, { firstname: 'Anne', description: 'second' });
    const stampA = (s.sandbox.db.prepare(`SELECT lastmodified FROM ${table('demo', 'accounts')} WHERE ID = ?`).get(a) as { lastmodified: number }).lastmodified;
    s.sandbox.hooks.requests.length = 0;
    const second = await run(args, { now: () => clock, monotonic: () => clock });
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout) as { updated: number; cursor: number };
    expect(summary.updated).toBe(1);
    // The clock does not move during the scan: the cursor is A's stamp exactly.
    expect(summary.cursor).toBe(stampA);
    expect(summary.cursor).toBeGreaterThan(cursor1);
    // The changed records' query: every column's alias as asked, and lastmodified under one key no column has.
    const changed = queryBodies(s, 'accounts').find((q) => JSON.stringify(q).includes('"lastmodified":{">="'));
    const sent = changed?.fields as Record<string, string>;
    const copied = Object.entries(sent).filter(([, path]) => path === 'lastmodified').map(([k]) => k);
    expect(copied.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(sent).map((k) => k.toLowerCase()).length).toBe(new Set(Object.keys(sent).map((k) => k.toLowerCase())).size);
    const copy = await readCopy(file, 'accounts');
    expect(copy.columns.map((c) => c.name)).toEqual(names);
    expect(Object.keys(copy.rows[0] ?? {})).toEqual(names);
    expect(copy.rows).toEqual(expectedRows(await run(['accounts', 'query', '--all', '--filter', filter, '--fields', fields, '-o', 'json']), copy.columns));
    expect(copy.rows.map((r) => r.ID)).toEqual([a, b]);
  });
});

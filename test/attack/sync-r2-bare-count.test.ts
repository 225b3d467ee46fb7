/**
 * The deletion check counts the whole range bare: no ID condition on the
 * service's count, no WHERE on the copy's. Records created during the run,
 * deletions during the run and a filter that records leave: the count still
 * finds what it must, and a run with nothing deleted costs one count.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli } from '../helpers/cli.js';
import { expectedRows, idsOnly, insertAccounts, queryBodies, readCopy, tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();
const FIELDS = 'ID,lastname,type';

describe.each(['sqlite', 'duckdb'])('the bare count into %s', (engine) => {
  it('a deletion balanced by a record created during the scan is found by the next run; the copy converges', async () => {
    const s = sandbox();
    const prefix = `Bare ${engine}`;
    const now = Math.floor(Date.now() / 1000);
    const ids = insertAccounts(s, 60, now - 7200, prefix);
    const file = join(tempDir(), `bare.${engine}`);
    const filter = `lastname ~~ '${prefix} %'`;
    const args = ['accounts', 'sync', '--into', file, '--filter', filter, '--fields', FIELDS, '--concurrency', '4', '--page-size', '5', '-o', 'json'];
    expect((await run(args)).code).toBe(0);
    // During the later run's scan: one record deleted, one created (stamped after the scan passed), one leaves the filter.
    const t = table('demo', 'accounts');
    let asked = 0;
    let created: number[] = [];
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !url.endsWith('/api/v1/accounts') || ++asked !== 2) return;
      s.sandbox.db.prepare(`DELETE FROM ${t} WHERE ID = ?`).run(ids[10]);
      s.sandbox.db.prepare(`UPDATE ${t} SET lastname = 'Gone elsewhere', lastmodified = ? WHERE ID = ?`).run(now + 5, ids[20]);
      created = insertAccounts(s, 1, now + 5, prefix);
    };
    const second = await run(args);
    s.sandbox.hooks.onArrival = undefined;
    expect(second.code, second.stderr).toBe(0);
    s.sandbox.hooks.requests.length = 0;
    const third = await run(args);
    expect(third.code, third.stderr).toBe(0);
    const copy = await readCopy(file, 'accounts');
    const want = expectedRows(await run(['accounts', 'query', '--all', '--filter', filter, '--fields', FIELDS, '-o', 'json']), copy.columns);
    expect(copy.rows, `second: ${second.stdout}; third: ${third.stdout}`).toEqual(want);
    expect(want.map((r) => r.ID)).toEqual(expect.arrayContaining(created));
    expect(want.map((r) => r.ID)).not.toContain(ids[10]);
    expect(want.map((r) => r.ID)).not.toContain(ids[20]);
    // Settled: a fourth run counts once, bare but for the filter.
    s.sandbox.hooks.requests.length = 0;
    expect((await run(args)).code).toBe(0);
    const counts = queryBodies(s, 'accounts').filter((b) => b.count === true);
    expect(counts).toHaveLength(1);
    expect(JSON.stringify(counts[0])).not.toContain('"ID"');
  });

  // svc pages by `ID > 0`, so neither sync nor `query --all` sees a record at ID 0 or below; the bare count does,
  // and the range is counted again with its condition.
  it('records with IDs 0 and below on the service: a settled run counts twice (bare, then above 0) and lists no IDs', async () => {
    const s = sandbox();
    const t = table('demo', 'accounts');
    const stamp = Math.floor(Date.now() / 1000) - 100;
    for (const id of [0, -7]) s.sandbox.db.prepare(`INSERT INTO ${t} (ID, lastname, currency, type, lastmodified) VALUES (?, ?, 'EUR', 1, ?)`).run(id, `Low ${engine} ${id}`, stamp);
    try {
      const file = join(tempDir(), `low.${engine}`);
      const args = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '-o', 'json'];
      expect((await run(args)).code).toBe(0);
      s.sandbox.hooks.requests.length = 0;
      const second = await run(args);
      expect(second.code, second.stderr).toBe(0);
      const bodies = queryBodies(s, 'accounts');
      const copy = await readCopy(file, 'accounts');
      const want = expectedRows(await run(['accounts', 'query', '--all', '--fields', FIELDS, '-o', 'json']), copy.columns);
      expect(copy.rows).toEqual(want);
      const why = `the settled run sent ${JSON.stringify(bodies)}`;
      expect(bodies.filter((b) => b.count === true).length, why).toBe(2);
      expect(bodies.filter(idsOnly), why).toEqual([]);
    } finally {
      s.sandbox.db.prepare(`DELETE FROM ${t} WHERE ID <= 0`).run();
    }
  });
});

/**
 * A later run at --concurrency 4 asks for the changed pages after the first
 * before it writes the first. When that write fails (here: a value that does
 * not fit its column), the run must end at once with its one-line error; the
 * chunks in flight are to be aborted. It used to await `rest.return()` while
 * the `rest.next()` it started was still pending, and an async generator
 * queues return() behind a running next(): the run waited for the first
 * chunk's page to arrive (a stalled service: its timeout, retries and
 * halving) before it reported the error.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { readCopy, tempDir } from '../sync/support.js';

const STALL_MS = 6000;
const closedByClient: string[] = [];
const { sandbox, run } = sandboxCli({ log: (line) => void (/closed by the client during an injected delay/.test(line) && closedByClient.push(line)) });

describe('sync: the writer fails on the first changed page while the next ones are in flight', () => {
  it.each(['sqlite', 'duckdb'])(`%s: exit 1 at once, not after the stalled chunk's ${STALL_MS} ms`, async (engine) => {
    const file = join(tempDir(), `inflight.${engine}`);
    expect((await run(['accounts', 'sync', '--into', file])).code).toBe(0);
    const before = await readCopy(file, 'accounts');
    const s = sandbox();
    const db = s.sandbox.db;
    const ids = (db.prepare('SELECT ID FROM "demo/accounts" ORDER BY ID LIMIT 12').all() as { ID: number }[]).map((r) => r.ID);
    const was = (db.prepare('SELECT creator AS v FROM "demo/accounts" WHERE ID = ?').get(ids[0]) as { v: unknown }).v;
    const stamp = (db.prepare('SELECT max(lastmodified) AS m FROM "demo/accounts"').get() as { m: number }).m + 1;
    db.prepare(`UPDATE "demo/accounts" SET lastmodified = ?, description = 'touched' WHERE ID IN (${ids.join(', ')})`).run(stamp);
    db.prepare('UPDATE "demo/accounts" SET creator = 9007199254740993 WHERE ID = ?').run(ids[0]);
    // The first two data queries are the first changed page and the highest ID beside it; every later one (the
    // chunks after the first page) stalls.
    let arrived = 0;
    s.sandbox.hooks.onArrival = (method, url) => {
      if (method === 'POST' && url.endsWith('/api/v1/accounts') && ++arrived > 2) s.sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { delayMs: STALL_MS } });
    };
    closedByClient.length = 0;
    try {
      const started = Date.now();
      const r = await run(['accounts', 'sync', '--into', file, '--concurrency', '4', '--page-size', '3']);
      const took = Date.now() - started;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`record ${ids[0]}: creator is`);
      // DuckDB writes asynchronously: the chunks reach the sandbox (in this process) and stall before the write
      // fails. SQLite writes at once: the chunks may be stopped before the sandbox reads them.
      if (engine === 'duckdb') expect(arrived, 'the chunks after the first page were asked for').toBeGreaterThan(2);
      expect(took, `the run reported the failed write after ${took} ms (${closedByClient.length} stalled requests closed by svc)`).toBeLessThan(STALL_MS / 2);
      expect((await readCopy(file, 'accounts')).rows).toEqual(before.rows);
    } finally {
      s.sandbox.hooks.onArrival = undefined;
      db.prepare('UPDATE "demo/accounts" SET creator = ? WHERE ID = ?').run(was, ids[0]);
    }
  }, 20_000);
});

/**
 * Concurrency above 1: the first page is asked alone, and "not full" is read
 * as "all there is". A first page that kept failing is asked again at half
 * the size (the pager's halving): it comes back full at its new size but
 * short of --page-size, and the pass ends there. The records above it are
 * never fetched, exit 0; the README promises "page halving on failures,
 * never a skipped page".
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';
import { expectedRows, insertAccounts, readCopy, tempDir } from '../sync/support.js';

const { sandbox, run } = sandboxCli();

const FIELDS = 'ID,lastname';

/**
 * Data queries number `from` to `from + n - 1` (counted as they arrive) fail with 503, Retry-After 0: the client
 * retries at once, then the pager halves the page.
 */
function failQueries(from: number, n: number): void {
  const hooks = sandbox().sandbox.hooks;
  let arrived = 0;
  hooks.onArrival = (method, url) => {
    if (method !== 'POST' || !url.endsWith('/api/v1/accounts')) return;
    arrived++;
    if (arrived >= from && arrived < from + n) hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 503, body: 'busy', headers: { 'Retry-After': '0' } } });
  };
}

async function expectCopyEqualsService(file: string, why: string): Promise<void> {
  const copy = await readCopy(file, 'accounts');
  const want = expectedRows(await run(['accounts', 'query', '--all', '--fields', FIELDS, '-o', 'json']), copy.columns);
  const held = new Map(copy.rows.map((r) => [r.ID, JSON.stringify(r)]));
  const missing = want.filter((r) => !held.has(r.ID)).length;
  const stale = want.filter((r) => held.has(r.ID) && held.get(r.ID) !== JSON.stringify(r)).length;
  expect({ missing, stale }, `of ${want.length} records, ${missing} missing from the copy and ${stale} stale; ${why}`).toEqual({ missing: 0, stale: 0 });
  expect(copy.rows).toEqual(want);
}

describe('sync at --concurrency 4: a first page halved after failures', () => {
  it.each(['sqlite', 'duckdb'])('%s, first pass: the records above a halved first page are copied (they were not, exit 0, and a clean re-run did not bring them)', async (engine) => {
    const s = sandbox();
    insertAccounts(s, 400, Math.floor(Date.now() / 1000) - 90 * 86_400, `Halved ${engine}`);
    const file = join(tempDir(), `halved.${engine}`);
    const args = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '--concurrency', '4', '--page-size', '100', '-o', 'json'];
    // The first query (the service's latest lastmodified, asked alone) goes through; then the first page and the
    // highest-ID query beside it meet sixteen failures: the page's first try and the client's three retries fail at
    // least once (halved), the highest-ID query asks again.
    failQueries(2, 16);
    const r = await run(args);
    s.sandbox.hooks.onArrival = undefined;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/asking again with \d+ records a page/);
    const again = await run(args);
    expect(again.code, again.stderr).toBe(0);
    await expectCopyEqualsService(file, `faulted run: ${r.stdout.trim()} ${r.stderr.trim()}; clean re-run: ${again.stdout.trim()}`);
  }, 20_000);

  it.each(['sqlite', 'duckdb'])('%s, later run (default --lag): the changes above a halved first page are fetched (they were skipped and the cursor passed them for good)', async (engine) => {
    const s = sandbox();
    const now = Math.floor(Date.now() / 1000);
    const ids = insertAccounts(s, 300, now - 3600, `Later ${engine}`);
    const file = join(tempDir(), `later.${engine}`);
    const args = ['accounts', 'sync', '--into', file, '--fields', FIELDS, '--concurrency', '4', '--page-size', '100', '-o', 'json'];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    // Changes after the first run's cursor: the 60 highest IDs first, then 60 lower ones ten minutes later (a
    // stamp ahead of this clock by less than a day is the service's clock, taken as it is).
    const t = `"${'demo/accounts'}"`;
    // Stamped after every stamp the service has (an earlier case's records included), as the service's clock would.
    const top = Math.max(now, (s.sandbox.db.prepare(`SELECT max(lastmodified) AS m FROM ${t}`).get() as { m: number }).m);
    const stamp = s.sandbox.db.prepare(`UPDATE ${t} SET lastname = ?, lastmodified = ? WHERE ID = ?`);
    s.sandbox.db.transaction(() => {
      for (const id of ids.slice(-60)) stamp.run(`Early change ${id}`, top + 1000, id);
      for (const id of ids.slice(0, 60)) stamp.run(`Late change ${id}`, top + 1600, id);
    })();
    failQueries(1, 16);
    const second = await run(args);
    s.sandbox.hooks.onArrival = undefined;
    expect(second.code, second.stderr).toBe(0);
    const third = await run(args);
    expect(third.code, third.stderr).toBe(0);
    await expectCopyEqualsService(file, `faulted run: ${second.stdout.trim()} ${second.stderr.trim()}; clean re-run: ${third.stdout.trim()}`);
  }, 20_000);
});

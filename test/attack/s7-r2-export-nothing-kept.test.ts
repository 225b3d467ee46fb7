/**
 * s7-r2: 4d1f86b (src/export/run-export.ts nothingKept): "a run stopped before its first record was
 * written keeps nothing (no checkpoint, no partial file)". Can it remove a checkpoint that held rows?
 * A --resume whose first new page fails; Parquet with rows in a row group not yet written; a second
 * export racing for the lock. Against this file's sandbox, faults from its hooks (a real socket).
 *
 * All HELD (they pass now) unless marked FINDING.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();

function out(): string {
  return join(mkdtempSync(join(tmpdir(), 's7-r2-nothing-')), 'a');
}

/** The n-th data query from now on (1-based) is answered 401, which is not retried. */
function refuseQuery(n: number): void {
  let seen = 0;
  sandbox().sandbox.hooks.onArrival = (method, url) => {
    if (method === 'POST' && /\/api\/v1\/accounts(\?|$)/.test(url) && ++seen === n) {
      sandbox().sandbox.hooks.failNext({ method: 'POST', path: '/api/v1/accounts', fault: { status: 401, body: 'token revoked' } });
    }
  };
}

const ids = (text: string): number[] => text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { ID: number }).ID);

describe('HELD: a --resume whose first new page fails keeps the checkpoint of the rows before', () => {
  it('ndjson: 6 rows kept, the resumed run refused at its first page, then a third run completes the file', async () => {
    const file = `${out()}.ndjson`;
    const argv = ['accounts', 'export', '--fields', 'ID', '--page-size', '3', '--output', file, '--quiet'];
    refuseQuery(3);
    const first = await run(argv);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/6 rows kept/);
    refuseQuery(1);
    const second = await run([...argv, '--resume']);
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toMatch(/6 rows kept/);
    expect(existsSync(`${file}.svc-partial`)).toBe(true);
    sandbox().sandbox.hooks.onArrival = undefined;
    const third = await run([...argv, '--resume']);
    expect(third.code, third.stderr).toBe(0);
    const all = await run(['accounts', 'query', '--all', '--fields', 'ID', '-o', 'ndjson']);
    expect(ids(readFileSync(file, 'utf8'))).toEqual(ids(all.stdout));
  });

  it('parquet, row groups of 4: the resumed run reads a page into an unwritten group and fails; the 4 rows of the first group stay', async () => {
    const file = `${out()}.parquet`;
    const env = { SVC_PARQUET_ROW_GROUP: '4' };
    const argv = ['accounts', 'export', '--fields', 'ID,lastname', '--page-size', '3', '--output', file, '--quiet'];
    refuseQuery(3);
    const first = await run(argv, { env });
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/4 rows kept/);
    // The resumed run: its first page (3 rows) goes into a group not yet written, its second fails.
    refuseQuery(2);
    const second = await run([...argv, '--resume'], { env });
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toMatch(/4 rows kept/);
    sandbox().sandbox.hooks.onArrival = undefined;
    const third = await run([...argv.filter((a) => a !== '--quiet'), '--progress', '--resume'], { env });
    expect(third.code, third.stderr).toBe(0);
    const count = await run(['accounts', 'count']);
    expect(third.stderr).toContain(`exported ${(JSON.parse(count.stdout) as { count: number }).count}`);
  });

  it('parquet, first run: records fetched into a group never written, then a failure: "no record was written", nothing left', async () => {
    const file = `${out()}.parquet`;
    refuseQuery(2);
    const r = await run(['accounts', 'export', '--fields', 'ID', '--page-size', '3', '--output', file, '--quiet'], { env: { SVC_PARQUET_ROW_GROUP: '100' } });
    sandbox().sandbox.hooks.onArrival = undefined;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/no record was written/);
    expect(existsSync(`${file}.svc-partial`)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('a second export to the same file while the first runs: refused, and the first one\'s partial file and result are whole', async () => {
    const file = `${out()}.ndjson`;
    const argv = ['accounts', 'export', '--fields', 'ID', '--page-size', '5', '--output', file, '--quiet'];
    let second: Promise<Awaited<ReturnType<typeof run>>> | undefined;
    let seen = 0;
    sandbox().sandbox.hooks.onArrival = (method, url) => {
      if (method === 'POST' && url.includes('/api/v1/accounts') && ++seen === 2 && !second) {
        // The first export holds its lock and has a page written: the second starts now, its pages slowed.
        second = run(argv);
      }
    };
    const first = await run(argv);
    const other = await (second as NonNullable<typeof second>);
    sandbox().sandbox.hooks.onArrival = undefined;
    expect(first.code, first.stderr).toBe(0);
    expect(other.code).toBe(1);
    expect(other.stderr).not.toMatch(/no record was written/);
    const all = await run(['accounts', 'query', '--all', '--fields', 'ID', '-o', 'ndjson']);
    expect(ids(readFileSync(file, 'utf8'))).toEqual(ids(all.stdout));
  });
});

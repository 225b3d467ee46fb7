/**
 * s7-reads: what the read verbs print (README, Output: "JSON, NDJSON, CSV and
 * TSV carry the service's values exactly"; tables drop control characters and
 * bidirectional overrides and fit the terminal) and how `query --all` pages
 * (README, Using svc: "keyset paging by ID: records present for the whole run
 * appear exactly once"), against the sandbox and against small hostile
 * node:http services that answer what a real PostgreSQL-backed service may.
 *
 * Tests named "HELD: …" are claims that held; "OBSERVATION: …" record
 * behaviour without judging it; the others fail today.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prepareInsert } from '../../src/sandbox/data/store.js';
import { table } from '../../src/sandbox/schema.js';
import { sandboxCli, svc } from '../helpers/cli.js';

const { sandbox, run } = sandboxCli();
const HOSTILE = ['Evil\u202eLive', 'a\u009b31mRED\u001b[2Jb\u0007', '\u2066x\u2069 iso', '東京東京東京東京東京東京東京東京東京東京 wide', '=HYPERLINK("http://x","y")', '+1;2', '-3+4', '@SUM(A1)', 'multi\nline "q", semi;colon\ttab\\back'];
const ids: number[] = [];

beforeAll(async () => {
  for (const lastname of HOSTILE) {
    const r = await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: lastname.replace(/\n/g, ' ').trim(), description: lastname, currency: 'EUR' } });
    expect(r.status, r.text).toBeLessThan(300);
    ids.push(r.json<{ ID: number }>().ID);
  }
});

const mine = () => `ID >= ${ids[0]} and ID <= ${ids[ids.length - 1]}`;

describe('tables on a terminal', () => {
  it('HELD: C0/C1 controls and bidi overrides/isolates never reach the terminal; every line fits 60 columns', async () => {
    const r = await run(['accounts', 'query', '--filter', mine(), '--fields', 'ID,lastname,description'], { tty: true, columns: 60, env: { PAGER: 'cat' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    for (const line of r.stdout.trimEnd().split('\n')) {
      let w = 0;
      for (const ch of line) w += /[\u3000-\u9fff]/.test(ch) ? 2 : 1;
      expect(w, line).toBeLessThanOrEqual(60);
    }
    expect(r.stdout).toMatch(/…/);
  });
});

describe('CSV and TSV', () => {
  it('HELD: CSV is RFC 4180 (quotes doubled, fields with the delimiter, quotes or line breaks quoted); TSV escapes', async () => {
    const csv = await run(['accounts', 'query', '--filter', `ID = ${ids[8]}`, '--fields', 'ID,description', '-o', 'csv', '--no-header']);
    expect(csv.stdout).toBe(`${ids[8]},"multi\nline ""q"", semi;colon\ttab\\back"\n`);
    const semi = await run(['accounts', 'query', '--filter', `ID = ${ids[5]}`, '--fields', 'ID,description', '-o', 'csv', '--no-header', '--delimiter', ';']);
    expect(semi.stdout).toBe(`${ids[5]};"+1;2"\n`);
    const tsv = await run(['accounts', 'query', '--filter', `ID = ${ids[8]}`, '--fields', 'ID,description', '-o', 'tsv', '--no-header']);
    expect(tsv.stdout).toBe(`${ids[8]}\tmulti\\nline "q", semi;colon\\ttab\\\\back\n`);
  });

  it('OBSERVATION: cells starting with = + - @ are written as they are (no formula neutralising); null and "" are both an empty cell', async () => {
    const csv = await run(['accounts', 'query', '--filter', `ID >= ${ids[4]} and ID <= ${ids[7]}`, '--fields', 'description,fork', '-o', 'csv', '--no-header']);
    expect(csv.stdout).toBe('"=HYPERLINK(""http://x"",""y"")",\n+1;2,\n-3+4,\n@SUM(A1),\n');
  });
});

describe('HELD: -o json and -o ndjson carry the sandbox values exactly', () => {
  it('doubles at the edges (5e-324, 1.7976931348623157e308, 0.30000000000000004, 1e21) read back exactly as the raw answer', async () => {
    const values = [5e-324, 1.7976931348623157e308, 0.30000000000000004, 1e21, 123456789.12345679, 1e-7, -0.5];
    const made: number[] = [];
    values.forEach((v, i) => {
      const r = prepareInsert(sandbox().sandbox.db, 'demo', 'components', ['item', 'component', 'amount', 'price', 'creationdate', 'lastmodified']);
      made.push(r([1, 2 + i, Math.abs(v), v, 0, 0]));
    });
    const filter = JSON.stringify({ ID: { IN: made } });
    const raw = await sandbox().call('POST', 'api/v1/components', { json: { filters: { ID: { IN: made } }, sort: ['+ID'] } });
    const nd = await run(['components', 'query', '--filter-json', filter, '--sort', '+ID', '-o', 'ndjson']);
    expect(nd.code, nd.stderr).toBe(0);
    const rawRecords = raw.json<Record<string, unknown>[]>();
    expect(nd.stdout).toBe(rawRecords.map((x) => `${JSON.stringify(x)}\n`).join(''));
    const json = await run(['components', 'query', '--filter-json', filter, '--sort', '+ID', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(rawRecords);
  });
});

describe('HELD: query --all while records are inserted and deleted between pages', () => {
  it('records present for the whole run appear exactly once, in ID order; deleted ones never twice', async () => {
    const db = sandbox().sandbox.db;
    const insert = prepareInsert(db, 'demo', 'accounts', ['lastname', 'currency', 'creationdate', 'lastmodified']);
    const stable: number[] = [];
    db.transaction(() => {
      for (let i = 0; i < 60; i++) stable.push(insert([`S7 page ${i}`, 'EUR', 0, 0]));
    })();
    const doomed = stable.filter((_, i) => i % 7 === 3);
    const keep = stable.filter((id) => !doomed.includes(id));
    let n = 0;
    sandbox().sandbox.hooks.onArrival = (method, url) => {
      if (method !== 'POST' || !/\/api\/v1\/accounts$/.test(url)) return;
      n += 1;
      if (n === 3) {
        // between pages 2 and 3: delete some records on both sides of the cursor, add new ones at the end
        db.prepare(`DELETE FROM ${table('demo', 'accounts')} WHERE ID IN (${doomed.join(',')})`).run();
        insert(['S7 page new 1', 'EUR', 0, 0]);
        insert(['S7 page new 2', 'EUR', 0, 0]);
      }
    };
    const r = await run(['accounts', 'query', '--all', '--page-size', '8', '--fields', 'ID', '-o', 'ndjson', '--filter', 'lastname ~~ "S7 page %"']);
    sandbox().sandbox.hooks.onArrival = undefined;
    expect(r.code, r.stderr).toBe(0);
    const got = r.stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { ID: number }).ID);
    expect(new Set(got).size).toBe(got.length);
    expect([...got].sort((a, b) => a - b)).toEqual(got);
    for (const id of keep) expect(got).toContain(id);
    expect(n).toBeGreaterThan(3);
    expect(got).not.toContain(doomed[doomed.length - 1]); // deleted before its page was read
  });
});

/** A small service on 127.0.0.1 that answers every query with `answer(body, rawBody)`; counts the queries. */
function hostileService(answer: (body: Record<string, unknown>, raw: string) => string): Promise<{ url: string; server: Server; queries: () => number }> {
  let queries = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      queries += 1;
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const text = answer(body, raw);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/demo`, server, queries: () => queries });
    });
  });
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const against = (url: string, argv: string[]) => svc(argv, { env: { SVC_URL: url, SVC_TOKEN: 'a'.repeat(40), NO_COLOR: '1' } });

describe('a service with int64 IDs past 2^53 and exact decimals (PostgreSQL bigint and numeric)', () => {
  const BIG = '12345678901234567891';
  const RECORD = `{"ID":${BIG},"item":1,"component":2,"amount":0.1000000000000000055511151231257827,"price":1e400,"fixed":0}`;

  // Not kept: a test that -o json prints 12345678901234567891 and 1e400 as sent. No catalogue type holds
  // them (int64 values are Unix seconds and IDs; doubles are binary64), and each binary64 the service sends is
  // printed as that same number in its shortest form (README, Output): a deliberate choice, not a fault.

  it('query --all pages past such an ID once, never the same record again and again', async () => {
    // The service compares IDs exactly, as PostgreSQL does; it stops answering after 30 pages so the test ends.
    const h = await hostileService((_body, raw) => {
      const after = /"ID":\{">":(\d+)\}/.exec(raw)?.[1] ?? '0';
      const last = BigInt(after);
      return last < BigInt(BIG) && h.queries() <= 30 ? `[{"ID":${BIG}}]` : '[]';
    });
    servers.push(h.server);
    const r = await against(h.url, ['components', 'query', '--all', '--page-size', '1', '--fields', 'ID', '-o', 'ndjson']);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines.length, `${h.queries()} queries; exit ${r.code}; ${r.stderr}`).toBeLessThanOrEqual(1);
  });

  it('query --all stops with an error when a full page does not move past the last ID (a service ignoring ID > last)', async () => {
    const h = await hostileService(() => (h.queries() <= 30 ? '[{"ID":5},{"ID":6}]' : '[]'));
    servers.push(h.server);
    const r = await against(h.url, ['accounts', 'query', '--all', '--page-size', '2', '--fields', 'ID', '-o', 'ndjson']);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(new Set(lines).size, `${h.queries()} queries, ${lines.length} lines`).toBe(lines.length);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: /);
  });
});

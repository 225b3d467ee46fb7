/**
 * s7-http: `svc accounts export --output-file x.csv` (the built svc, spawned)
 * against a REAL hostile server: a node:http forwarder on 127.0.0.1 in front
 * of a test sandbox, set as the instance URL, that passes the first pages
 * through and then starts failing (5xx for good, a proxy's HTML sign-in page,
 * dropped connections, a 401, a body cut short, a body that trickles). What
 * the user must see each time: nothing at x.csv (no half-written file), one
 * stderr line naming the problem and `--resume`, the documented exit code,
 * and `--resume` against the healed server finishing byte-identical to a
 * clean export.
 *
 * Tests marked HELD pass today; the others fail until svc is fixed.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedTrickyAccounts } from '../export/support.js';
import { useTestSandbox } from '../helpers/sandbox.js';
import { type Ended, useHostileServer, useSpawnedSvc } from './s7-support.js';

const s = useTestSandbox();
const ROWS = 400;
const PAGE = 50;

/** What the forwarder does with the n-th query (1-based) once `failFrom` is reached; undefined forwards it. */
type Fault = (req: IncomingMessage, res: ServerResponse) => void;
let failFrom = Infinity;
let fault: Fault | undefined;
let queries = 0;

function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const target = new URL(s.instanceUrl);
  const up = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  up.end(body);
}

beforeAll(() => {
  seedTrickyAccounts(s, ROWS);
});
const front = useHostileServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    const body = Buffer.concat(parts);
    const isQuery = req.method === 'POST' && /\/api\/v1\/accounts$/.test(req.url ?? '') && !body.toString().includes('"count"');
    if (isQuery) queries++;
    if (isQuery && queries >= failFrom && fault) fault(req, res);
    else forward(req, res, body);
  });
});
beforeEach(() => {
  failFrom = Infinity;
  fault = undefined;
  queries = 0;
});

const { run: svc } = useSpawnedSvc({ url: front.url, token: () => s.token() });

let reference = '';
beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 's7-http-ref-')), 'ref.csv');
  const r = await svc(['accounts', 'export', '--format', 'csv', '--page-size', String(PAGE), '--output-file', file]);
  expect(r.code, r.stderr).toBe(0);
  reference = readFileSync(file, 'utf8');
}, 30_000);

const exportArgs = (file: string, ...more: string[]): string[] => ['accounts', 'export', '--format', 'csv', '--page-size', String(PAGE), '--output-file', file, ...more];

/** The run failed as documented: nothing at the target, one line naming the cause and --resume; then --resume on the healed server ends byte-identical. */
async function expectFailedThenResumed(r: Ended, file: string, code: number, cause: RegExp): Promise<void> {
  const what = `exit ${r.code} (${r.signal ?? 'no signal'}) after ${r.ms} ms: ${JSON.stringify(r.stderr)}`;
  expect(r.signal, what).toBeNull();
  expect(r.code, what).toBe(code);
  expect(existsSync(file), `half-written target: ${what}`).toBe(false);
  expect(r.stderr.trimEnd().split('\n').filter((l) => !l.includes('a page kept failing')), what).toHaveLength(1);
  expect(r.stderr, what).toMatch(cause);
  expect(r.stderr, what).not.toContain('unexpected error');
  expect(r.stderr, what).toContain('--resume');
  expect(r.stderr, `${what}\nthe token was printed`).not.toContain(s.token());
  fault = undefined;
  failFrom = Infinity;
  const resumed = await svc(exportArgs(file, '--resume'));
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(readFileSync(file, 'utf8') === reference, 'resumed export differs from a clean one').toBe(true);
  expect(existsSync(`${file}.svc-partial`)).toBe(false);
}

const target = (): string => join(mkdtempSync(join(tmpdir(), 's7-http-exp-')), 'x.csv');

describe('an export whose server starts failing after 3 pages', () => {
  it('HELD: 500 on every page from the 4th on: exit 1 after the halving, target untouched, names --resume', async () => {
    failFrom = 4;
    fault = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    };
    const file = target();
    const r = await svc(exportArgs(file, '--retries', '0'));
    await expectFailedThenResumed(r, file, 1, /failed with 500: internal error/);
  });

  it('HELD: every connection from the 4th page on dropped before an answer: exit 1, names --resume', async () => {
    failFrom = 4;
    fault = (req) => req.socket.destroy();
    const file = target();
    const r = await svc(exportArgs(file, '--retries', '0'));
    await expectFailedThenResumed(r, file, 1, /closed the connection/);
  });

  it('HELD: a 401 from the 4th page on (the token revoked mid-run): exit 4, names --resume', async () => {
    failFrom = 4;
    fault = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"invalid token"}');
    };
    const file = target();
    const r = await svc(exportArgs(file));
    await expectFailedThenResumed(r, file, 4, /failed with 401/);
  });

  it("a proxy's HTML sign-in page (200) from the 4th page on: exit 1, one line naming the request and that the answer is not JSON, names --resume", async () => {
    failFrom = 4;
    fault = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><body>Your proxy session expired. Sign in.</body></html>');
    };
    const file = target();
    const r = await svc(exportArgs(file, '--retries', '0'));
    await expectFailedThenResumed(r, file, 1, /POST http:\/\/127\.0\.0\.1:\d+\/demo\/api\/v1\/accounts.*(not JSON|text\/html)/);
  });

  it('a page whose Content-Length is shorter than its body (cut mid-record), from the 4th page on: exit 1, one line naming the request, names --resume', async () => {
    failFrom = 4;
    fault = (_req, res) => {
      const body = '[{"ID": 999999, "lastname": "cut here';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length - 20) });
      res.end(body);
    };
    const file = target();
    const r = await svc(exportArgs(file, '--retries', '0'));
    await expectFailedThenResumed(r, file, 1, /POST http:\/\/127\.0\.0\.1:\d+\/demo\/api\/v1\/accounts/);
  });

  it('HELD: a page cut off by a dropped connection mid-body, from the 4th page on: exit 1, names --resume', async () => {
    failFrom = 4;
    fault = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      res.write('[{"ID": 999999, "lastname": "cut');
      setImmediate(() => res.socket?.destroy());
    };
    const file = target();
    const r = await svc(exportArgs(file, '--retries', '0'));
    await expectFailedThenResumed(r, file, 1, /closed the connection/);
  });

  it('a page that trickles one byte every 200 ms and never ends, with --timeout 1s: ends (exit 1) instead of hanging, names --resume', async () => {
    failFrom = 4;
    const timers: NodeJS.Timeout[] = [];
    fault = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"ID": 999999, "lastname": "slow');
      const t = setInterval(() => res.write('o'), 200);
      timers.push(t);
      res.on('close', () => clearInterval(t));
    };
    const file = target();
    try {
      const r = await svc(exportArgs(file, '--retries', '0', '--timeout', '1s'), { killMs: 12_000 });
      for (const t of timers) clearInterval(t);
      await expectFailedThenResumed(r, file, 1, /time|stopped arriving/);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  }, 30_000);
});

/**
 * s7-r3: regressions of the body pace rule (src/http/body.ts), the non-JSON
 * detection and the JSON nesting limit, against a REAL node:http server on
 * 127.0.0.1 that streams at controlled rates; svc is spawned as
 * `node bin/svc.js`. Tests marked HELD pass today; the others fail until svc
 * is fixed.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type Ended, type Handler, useHostileServer, useSpawnedSvc } from './s7-support.js';

let handler: Handler = (_req, res) => res.end();
const hostile = useHostileServer((req, res) => handler(req, res), { closeConnectionsAfterEach: true });

/** The built svc pointed at the server, stdout as bytes; `holdStdoutUntil`: nobody reads svc's stdout until it settles. */
const { start: svc } = useSpawnedSvc({ url: hostile.url, configPrefix: 's7-r3-', killMs: 18_000, stdout: 'buffer' });

/** Writes `body` in `size`-byte pieces every `ms`, then ends; resolves when all was handed to the socket. */
function stream(res: ServerResponse, body: Buffer, size: number, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let at = 0;
    const t = setInterval(() => {
      const piece = body.subarray(at, at + size);
      at += piece.length;
      if (at >= body.length) {
        clearInterval(t);
        res.end(piece, () => resolve());
      } else res.write(piece);
    }, ms);
    hostile.timers.add(t);
    res.on('close', () => clearInterval(t));
  });
}

/** A JSON object of about `bytes` bytes (one record with a long note). */
function bigRecord(bytes: number): Buffer {
  return Buffer.from(JSON.stringify({ ID: 1, lastname: 'Big', note: 'x'.repeat(bytes) }));
}

const what = (r: Ended<Buffer>): string => `exit ${r.code} (${r.signal ?? 'no signal'}) after ${r.ms} ms, ${r.stdout.length} bytes out: ${JSON.stringify(r.stderr.slice(0, 400))}`;

describe('the pace rule does not cut a slow but moving answer', () => {
  it('HELD: svc api downloading 1.5 MB at ~200 KB/s with --timeout 1s reads it to its end', async () => {
    const body = bigRecord(1_500_000);
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      void stream(res, body, 10_240, 50);
    };
    const r = await svc(['api', 'accounts/1', '--timeout', '1s', '--retries', '0']).ended;
    expect(r.code, what(r)).toBe(0);
    expect(r.stdout.equals(body)).toBe(true);
  }, 20_000);

  it('HELD: a body whose first byte comes after 0.9 × --timeout, then streams fast, is read', async () => {
    const body = bigRecord(500_000);
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const t = setTimeout(() => res.end(body), 900);
      hostile.timers.add(t);
    };
    const r = await svc(['api', 'accounts/1', '--timeout', '1s', '--retries', '0']).ended;
    expect(r.code, what(r)).toBe(0);
    expect(r.stdout.length).toBe(body.length);
  }, 20_000);

  it('HELD: a reader that takes nothing for 3 × --timeout (svc api … | (sleep 3; cat)): the wait on the pipe does not count', async () => {
    const body = bigRecord(4_000_000);
    let sent!: () => void;
    const allSent = new Promise<void>((r) => (sent = r));
    let release!: () => void;
    const later = new Promise<void>((r) => (release = r));
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Fast at first; the rest trickles in at 64 KB every 20 ms while svc's stdout is full.
      void stream(res, body, 65_536, 20).then(sent);
    };
    // The slow consumer: starts reading 3 s after svc began (the pipe is full long before).
    const t = setTimeout(() => release(), 3_000);
    hostile.timers.add(t);
    const r = await svc(['api', 'accounts/1', '--timeout', '1s', '--retries', '0'], { holdStdoutUntil: later }).ended;
    await allSent.catch(() => undefined);
    expect(r.code, what(r)).toBe(0);
    expect(r.stdout.length, what(r)).toBe(body.length);
  }, 20_000);
});

describe('answers that are JSON, or need not be', () => {
  const record = { ID: 1, lastname: 'Ada', firstname: 'Lovelace' };

  it.each([
    ['application/json; charset=utf-8'],
    ['APPLICATION/JSON'],
    [undefined],
    ['text/plain'],
    ['application/vnd.api+json'],
  ])('HELD: accounts get 1 with content-type %s and a JSON body prints the record', async (type) => {
    handler = (_req, res) => {
      res.writeHead(200, type ? { 'content-type': type } : {});
      res.end(JSON.stringify([record]));
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--retries', '0']).ended;
    expect(r.code, what(r)).toBe(0);
    expect(JSON.parse(r.stdout.toString())).toMatchObject([record]);
  });

  it('HELD: a record whose JSON field nests 60 levels (legal) prints whole, in -o json and table', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 60; i++) deep = i % 2 ? [deep] : { k: deep };
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ ...record, extdata: deep }]));
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--retries', '0']).ended;
    expect(r.code, what(r)).toBe(0);
    expect(JSON.stringify(JSON.parse(r.stdout.toString())[0].extdata)).toBe(JSON.stringify(deep));
  });

  it('HELD: svc api passes an answer nested 900 levels (under the limit) byte for byte, and --jq reads it', async () => {
    const body = '['.repeat(900) + '1' + ']'.repeat(900);
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    };
    const r = await svc(['api', 'accounts/1', '--retries', '0']).ended;
    expect(r.code, what(r)).toBe(0);
    expect(r.stdout.toString()).toBe(body);
  });

  it('HELD: a record of 2,000 small nested objects side by side (many brackets, shallow) is read', async () => {
    const items = Array.from({ length: 2_000 }, (_, i) => ({ a: { b: [i] } }));
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ ...record, extdata: items }]));
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--retries', '0']).ended;
    expect(r.code, what(r)).toBe(0);
    expect(r.stdout.toString()).toContain('"b"');
  });
});

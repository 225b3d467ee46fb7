/**
 * The HTTP client, and svc in-process, against a real node:http server on
 * 127.0.0.1 that answers wrongly: a body that trickles for ever, an error text
 * that never ends, a 200 that is not JSON, a 304 nobody asked for, terminal
 * escapes in its text, Retry-After values that are no delay, JSON nested
 * 100,000 levels deep, a record GET without an ETag before a bulk write.
 * Each ends in one line naming the request and the fix, with the documented
 * exit code, within the time --timeout allows.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/errors.js';
import { createHttpClient, type HttpClientOptions } from '../../src/http/client.js';
import { HttpStatusError, NetworkError } from '../../src/http/errors.js';
import { MAX_ANSWER_DEPTH } from '../../src/http/json-array.js';
import { retryAfterMs } from '../../src/http/retry.js';
import { jsonText } from '../../src/output/json-text.js';
import { svc } from '../helpers/cli.js';
import { useForwardProxy } from '../helpers/proxy.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_req, res) => res.end('{}');
/** The requests of the test: method, URL, If-Match. */
const seen: { method: string; url: string; ifMatch: string | undefined }[] = [];
const timers = new Set<NodeJS.Timeout>();
const sockets = new Set<Socket>();
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', ifMatch: req.headers['if-match'] });
    handler(req, res);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/demo`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});
afterEach(() => {
  for (const t of timers) clearInterval(t);
  timers.clear();
  seen.length = 0;
});

/** Writes `chunk` every `ms` until the response closes (or `times` writes, then ends it). */
function dribble(res: ServerResponse, chunk: string, ms: number, times = Infinity): void {
  let n = 0;
  const t = setInterval(() => {
    if (n++ >= times) {
      clearInterval(t);
      res.end();
    } else res.write(chunk);
  }, ms);
  timers.add(t);
  res.on('close', () => clearInterval(t));
}

function client(extra: Partial<HttpClientOptions> = {}) {
  return createHttpClient({ instanceUrl: base, token: 't0ken', userAgent: 'svc/test', env: {}, retry: { retries: 0 }, ...extra });
}

const errorOf = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

/** svc in-process against the hostile server. */
const run = (argv: string[]) => svc(argv, { env: { SVC_URL: base, SVC_TOKEN: 'x'.repeat(40), NO_COLOR: '1' } });

/** One line on stderr, svc's own, naming the request, never "unexpected error" and nothing that acts on a terminal. */
function expectOneLine(stderr: string, path: string): void {
  expect(stderr.endsWith('\n'), stderr).toBe(true);
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^svc: /);
  expect(stderr).toContain(`${base}/api/v1/${path}`);
  expect(stderr).not.toContain('unexpected error');
  // eslint-disable-next-line no-control-regex
  expect(stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
}

describe('a body that trickles', () => {
  const proxy = useForwardProxy();
  it('is cut about one --timeout after it starts (a trickle defeats the idle timeout): a NetworkError saying to raise --timeout', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ID": 1, "lastname": "slow');
      dribble(res, 'o', 40);
    };
    const c = client({ timeoutMs: 300 });
    const t0 = Date.now();
    const res = await c.request({ method: 'GET', root: 'api', path: '/accounts/1' });
    const err = (await errorOf(res.json())) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('SVC_BODY_SLOW');
    expect(err.message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/demo\/api\/v1\/accounts\/1: the answer arrived too slowly \(\d+ bytes in [\d.]+ s, under 1 KB\/s once --timeout had passed\); raise --timeout or check the network$/);
    expect(Date.now() - t0).toBeLessThan(3_000);
    await c.close();
  });

  it('through a proxy (undici, whose idle timeout a trickle defeats too): the same', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"ID": 1, "lastname": "slow');
      dribble(res, 'o', 40);
    };
    const c = client({ timeoutMs: 300, env: { HTTP_PROXY: proxy.url() } });
    const t0 = Date.now();
    const res = await c.request({ method: 'GET', root: 'api', path: '/accounts' });
    const err = (await errorOf(res.jsonArray((e) => e))) as NetworkError;
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('SVC_BODY_SLOW');
    expect(Date.now() - t0).toBeLessThan(3_000);
    await c.close();
  });

  it('a slow but steady body is read to its end, long past --timeout (and after a pause shorter than it)', async () => {
    const piece = JSON.stringify({ ID: 1, text: 'x'.repeat(2000) });
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      setTimeout(() => {
        res.write('[');
        let n = 0;
        const t = setInterval(() => {
          res.write(`${n === 0 ? '' : ','}${piece}`);
          if (++n === 30) {
            clearInterval(t);
            res.end(']');
          }
        }, 40);
        timers.add(t);
      }, 200);
    };
    const c = client({ timeoutMs: 300 });
    const t0 = Date.now();
    const res = await c.request({ method: 'GET', root: 'api', path: '/accounts' });
    expect(await res.jsonArray((e) => e)).toHaveLength(30);
    // About 1.4 s: more than four times --timeout, at some 50 KB/s.
    expect(Date.now() - t0).toBeGreaterThan(1_000);
    await c.close();
  });

  it('svc accounts get --timeout 1s --retries 0 against a trickle: exit 1 in one line, in seconds', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ID": 1, "lastname": "slow');
      dribble(res, 'o', 200);
    };
    const t0 = Date.now();
    const r = await run(['accounts', 'get', '1', '-o', 'json', '--timeout', '1s', '--retries', '0']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, 'accounts/1');
    expect(r.stderr).toMatch(/too slowly.*raise --timeout/);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});

describe('error answers', () => {
  it('an error text that never ends: only its start is read, and the status is reported at once', async () => {
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.write('internal error: ');
      dribble(res, 'E'.repeat(4096), 5);
    };
    const c = client({ timeoutMs: 1_000 });
    const t0 = Date.now();
    const err = (await errorOf(c.request({ method: 'GET', root: 'api', path: '/accounts/1' }))) as HttpStatusError;
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err.status).toBe(500);
    expect(err.message).toMatch(/failed with 500: internal error: E{200,}…$/);
    expect(Date.now() - t0).toBeLessThan(3_000);
    await c.close();
  });

  it('an error text cut off by the deadline still reports the status, with what arrived', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('down for a while');
    };
    const c = client({ timeoutMs: 10_000, deadlineMs: 300 });
    const err = (await errorOf(c.request({ method: 'GET', root: 'api', path: '/accounts/1' }))) as HttpStatusError;
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err.message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/demo\/api\/v1\/accounts\/1 failed with 503: down for a while$/);
    await c.close();
  });

  it('a 503 whose text trickles is retried once its text is cut for slowness, not after the whole deadline', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('busy');
      dribble(res, '.', 40);
    };
    const waits: number[] = [];
    const c = client({ timeoutMs: 300, retry: { retries: 1 }, sleep: async (ms) => void waits.push(ms) });
    const t0 = Date.now();
    const err = (await errorOf(c.request({ method: 'GET', root: 'api', path: '/accounts/1' }))) as HttpStatusError;
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err.message).toMatch(/failed with 503: busy\.*$/);
    expect(seen).toHaveLength(2);
    expect(waits).toHaveLength(1);
    // The deadline is 300 ms × 2 tries + 10 s.
    expect(Date.now() - t0).toBeLessThan(3_000);
    await c.close();
  });

  it('terminal escapes in an error text never reach stderr', async () => {
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('\u001b]0;owned\u0007\u001b[2J\u001b[31mred\rFAKE: svc: all good\u0008\u0008\u009b31m\u202eevil');
    };
    const r = await run(['accounts', 'get', '1', '-o', 'json', '--retries', '0']);
    expect(r.code).toBe(1);
    expectOneLine(r.stderr, 'accounts/1');
    expect(r.stderr).toContain('failed with 500: ?]0;owned??[2J?[31mred FAKE: svc: all good???31m?evil');
  });

  it('a Retry-After longer than svc waits ends at once, naming the wait the service asked for', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': '86400' });
      res.end('down for maintenance');
    };
    const r = await run(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(seen).toHaveLength(1);
    expectOneLine(r.stderr, 'accounts/1');
    expect(r.stderr).toMatch(/failed with 503: down for maintenance \(the service asked to retry after 86,400 s\)\n$/);
  });

  it('a 304 svc did not ask for (no If-None-Match) is an error, exit 1; asked for, it is "unchanged"', async () => {
    handler = (_req, res) => {
      res.writeHead(304, { etag: '"abc"' });
      res.end();
    };
    const r = await run(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, 'accounts/1');
    expect(r.stderr).toMatch(/failed with 304: Not Modified, though svc did not ask whether anything changed \(no If-None-Match\)/);
    const asked = await run(['accounts', 'get', '1', '--if-none-match', '"abc"', '-o', 'json']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toContain('unchanged');
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2024-01-01T00:00:00Z');
  it.each([
    ['3', 3000],
    [' 0 ', 0],
    ['Mon, 01 Jan 2024 00:00:05 GMT', 5000],
    ['Monday, 01-Jan-24 00:00:05 GMT', 5000],
    ['Mon Jan  1 00:00:05 2024', 5000],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 0],
  ])('%j asks for %i ms', (value, ms) => {
    expect(retryAfterMs(value, now)).toBe(ms);
  });

  it.each(['-5', '1.5', '+3', '3s', 'soon', '2024-01-01T00:00:05Z', 'Mon, 01 Jan 2024 00:00:05'])('%j is no delay nor HTTP-date: ignored (the normal backoff applies)', (value) => {
    expect(retryAfterMs(value, now)).toBeUndefined();
  });

  it('a 503 with Retry-After -5 is retried after the backoff, not at once', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': '-5' });
      res.end('busy');
    };
    const waits: number[] = [];
    const c = client({ retry: { retries: 2, baseMs: 1000, capMs: 1000 }, sleep: async (ms) => void waits.push(ms) });
    const err = (await errorOf(c.request({ method: 'GET', root: 'api', path: '/accounts/1' }))) as HttpStatusError;
    expect(err.status).toBe(503);
    expect(err.message).not.toContain('asked to retry');
    expect(waits).toHaveLength(2);
    // Full jitter up to 1 s each: two zeros in a row are all but impossible; read as a past date they were 0 ms.
    expect(waits.some((w) => w > 0)).toBe(true);
    await c.close();
  });
});

describe('a 200 that is not JSON', () => {
  const cases: [string, Handler, RegExp][] = [
    [
      "a proxy's HTML page",
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('\u001b[2J<!DOCTYPE html><html><body>Please sign in</body></html>');
      },
      /answered text\/html, not JSON \(a proxy's page\? check the instance URL\)$/,
    ],
    [
      'an empty body',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end();
      },
      /answered an empty body, not JSON/,
    ],
    [
      'a body cut short by its Content-Length',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '9' });
        res.end('{"ID": 1, "lastname": "Cut"}');
      },
      /answered JSON that does not parse \(.*\); cut short, or a proxy in between\? check the instance URL$/,
    ],
    [
      'gzip svc never asked for',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0xae, 0x05, 0x00]));
      },
      /answered content encoded as gzip, which svc did not ask for, not JSON/,
    ],
  ];
  it.each(cases)('%s: exit 1, one line naming the request and what came', async (_name, h, message) => {
    handler = h;
    const r = await run(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, 'accounts/1');
    expect(r.stderr.trimEnd()).toMatch(message);
  });

  it('a query page that is an HTML page: the same, for the POST', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>gotcha</html>');
    };
    const r = await run(['accounts', 'query', '--limit', '2', '-o', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expectOneLine(r.stderr, 'accounts');
    expect(r.stderr).toMatch(/^svc: POST \S+ answered text\/html, not JSON/);
  });
});

describe('JSON nested deeper than svc reads', () => {
  const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;

  it.each(['json', 'table', 'csv'])('a record nested 100,000 levels deep (-o %s): exit 1, one line naming the request, no crash', async (format) => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"ID":1,"lastname":"Deep","x":${deep(100_000)}}`);
    };
    const r = await run(['accounts', 'get', '1', '-o', format]);
    expect(r.code, r.stderr).toBe(1);
    expectOneLine(r.stderr, 'accounts/1');
    expect(r.stderr).toContain(`answered JSON nested more than ${MAX_ANSWER_DEPTH} levels deep`);
  });

  it('a deep record in a query page is refused the same way; one just within the limit is shown', async () => {
    let depth = 100_000;
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`[{"ID":1,"lastname":"Flat"},{"ID":2,"lastname":"Deep","x":${deep(depth)}}]`);
    };
    const refused = await run(['accounts', 'query', '--limit', '2', '-o', 'json']);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('nested more than');
    depth = MAX_ANSWER_DEPTH - 2;
    const shown = await run(['accounts', 'query', '--limit', '2', '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toHaveLength(2);
  });

  it('the formatters turn a value too deep for JSON.stringify into one error, not a crash', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(() => jsonText(v)).toThrow(SvcError);
    expect(() => jsonText(v)).toThrow(/nests too deeply/);
    expect(jsonText({ a: [1] }, 2)).toBe('{\n  "a": [\n    1\n  ]\n}');
  });
});

describe('update and delete --filter when the record GET answers no ETag', () => {
  const STAMP = 1_700_000_000;
  const noEtagServer: Handler = (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const json = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST') {
        if ((JSON.parse(text || '{}') as { count?: boolean }).count) return json(200, { count: 2 });
        return json(200, /"ID":\{">":0/.test(text) ? [{ ID: 1, lastmodified: STAMP }, { ID: 2, lastmodified: STAMP }] : []);
      }
      const id = Number(/\/accounts\/(\d+)$/.exec(req.url ?? '')?.[1]);
      if (req.method === 'GET') return json(200, { ID: id, lastname: `N${id}`, lastmodified: STAMP });
      return json(200, { ID: id, lastname: 'Changed', lastmodified: STAMP + 1 });
    });
  };

  it.each([
    ['delete', ['accounts', 'delete', '--filter', 'ID > 0', '--yes']],
    ['update', ['accounts', 'update', '--filter', 'ID > 0', 'lastname=Changed', '--yes']],
  ])('%s: nothing is written, each record is reported failed naming the missing ETag, exit 1', async (_verb, argv) => {
    handler = noEtagServer;
    const r = await run(argv);
    expect(seen.filter((s) => s.method === 'DELETE' || s.method === 'PATCH')).toEqual([]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('answered no ETag');
    expect(r.stderr).toMatch(/2 failed/);
  });
});

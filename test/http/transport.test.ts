/**
 * The node:http transport against real local servers: keep-alive, the three
 * timeouts (and none while the reader holds the body back), aborts, dropped
 * connections, redirects, TLS trust and a process that exits right after its
 * answer. Nothing is mocked.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, trustedCa, type HttpClientOptions } from '../../src/http/client.js';
import { NetworkError, RedirectError } from '../../src/http/errors.js';
import { isRetryableError } from '../../src/http/retry.js';
import { testCertificate } from '../helpers/tls.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTP server on 127.0.0.1 whose answer each test sets; counts connections and requests. */
function useServer(): { url(): string; handle(h: Handler): void; connections(): number; requests(): number } {
  let server: Server | undefined;
  let handler: Handler = (_req, res) => res.end('{}');
  let connections = 0;
  let requests = 0;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createHttpServer((req, res) => {
      requests++;
      handler(req, res);
    });
    server.on('connection', (s: Socket) => {
      connections++;
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });
  return {
    url: () => `http://127.0.0.1:${(server?.address() as { port: number }).port}/demo`,
    handle: (h) => {
      handler = h;
    },
    connections: () => connections,
    requests: () => requests,
  };
}

const server = useServer();

function client(extra: Partial<HttpClientOptions> = {}) {
  return createHttpClient({ instanceUrl: server.url(), userAgent: 'svc/test', env: {}, retry: { retries: 0 }, ...extra });
}

const errorOf = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

/** Runs an ES module snippet with tsx in the project (asynchronously: the servers live in this process). */
function runSnippet(code: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 }, (_e, stdout, stderr) =>
      resolve({ stdout, stderr, ms: Date.now() - t0 }),
    );
  });
}

describe('the node:http transport', () => {
  it('keeps one connection alive across requests, and sends bodies with their length', async () => {
    const seen: string[] = [];
    server.handle((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${req.headers['content-length'] ?? '-'} ${req.headers['content-type'] ?? '-'} ${body}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify([{ ID: 1 }, { ID: 2 }]));
      });
    });
    const before = server.connections();
    const c = client({ token: 't0ken' });
    const a = await c.request({ method: 'POST', root: 'api', path: '/accounts', json: { count: true }, idempotent: true });
    expect(await a.jsonArray((e) => e)).toEqual([{ ID: 1 }, { ID: 2 }]);
    const b = await c.request({ method: 'GET', root: 'api', path: '/accounts', query: { a: ['1', '2'] } });
    expect(await b.text()).toBe('[{"ID":1},{"ID":2}]');
    expect(server.connections() - before).toBe(1);
    expect(seen).toEqual(['POST /demo/api/v1/accounts 14 application/json {"count":true}', 'GET /demo/api/v1/accounts?a=1&a=2 - - ']);
    await c.close();
  });

  it('times out waiting for the headers, and retries a read that timed out', async () => {
    server.handle(() => undefined); // never answers
    const before = server.requests();
    const c = client({ timeoutMs: 150, retry: { retries: 1, baseMs: 1 } });
    const err = (await errorOf(c.request({ method: 'GET', root: 'api', path: '/config' }))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('SVC_HEADERS_TIMEOUT');
    expect(err.message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/demo\/api\/v1\/config: no answer in time; raise --timeout/);
    expect(server.requests() - before).toBe(2);
    await c.close();
  });

  it('times out a body that stops arriving: a NetworkError, as the export pager expects', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"ID":1},');
    });
    const c = client({ timeoutMs: 150 });
    const res = await c.request({ method: 'GET', root: 'api', path: '/accounts' });
    const err = (await errorOf(res.jsonArray((e) => e))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('SVC_BODY_TIMEOUT');
    await c.close();
  });

  it('does not time out a body while the reader holds it back', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 'x');
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(big);
    });
    const c = client({ timeoutMs: 200 });
    const res = await c.request({ method: 'GET', root: 'api', path: '/big' });
    let n = 0;
    let first = true;
    for await (const chunk of res.body) {
      n += chunk.length;
      if (first) {
        first = false;
        await new Promise((r) => setTimeout(r, 700)); // the socket is paused meanwhile
      }
    }
    expect(n).toBe(big.length);
    await c.close();
  });

  it('reports a connection dropped mid-body as a NetworkError, and one dropped before the answer is retried', async () => {
    server.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('[{"ID":1},');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const c = client();
    const res = await c.request({ method: 'GET', root: 'api', path: '/accounts' });
    const err = (await errorOf(res.json())) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/the other side closed the connection before the answer was complete \(ECONNRESET\)/);

    let drops = 1;
    server.handle((req, res) => {
      if (drops-- > 0) req.socket.destroy();
      else res.end('{"ok":true}');
    });
    const waits: number[] = [];
    const retrying = client({ retry: { retries: 2 }, sleep: async (ms) => void waits.push(ms) });
    expect(await (await retrying.request({ method: 'GET', root: 'api', path: '/config' })).json()).toEqual({ ok: true });
    expect(waits).toHaveLength(1);
    drops = 1;
    const create = await errorOf(retrying.request({ method: 'PUT', root: 'api', path: '/accounts', json: {} }));
    expect(create).toBeInstanceOf(NetworkError);
    expect(waits).toHaveLength(1); // a create is never sent twice
    await Promise.all([c.close(), retrying.close()]);
  });

  it('stops at once on the caller signal, before the answer and while the body streams', async () => {
    server.handle(() => undefined);
    const c = client();
    const early = new AbortController();
    const why = new Error('interrupted');
    setTimeout(() => early.abort(why), 50);
    const t0 = Date.now();
    expect(await errorOf(c.request({ method: 'GET', root: 'api', path: '/config', signal: early.signal }))).toBe(why);
    expect(Date.now() - t0).toBeLessThan(1000);

    server.handle((_req, res) => {
      res.writeHead(200);
      res.write('[');
    });
    const late = new AbortController();
    const res = await c.request({ method: 'GET', root: 'api', path: '/accounts', signal: late.signal });
    setTimeout(() => late.abort(why), 50);
    expect(await errorOf(res.json())).toBe(why);
    await c.close();
  });

  it('refuses to follow a redirect, reading where it pointed', async () => {
    server.handle((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example.com/x?token=secret' });
      res.end('moved');
    });
    const c = client();
    const err = (await errorOf(c.request({ method: 'GET', root: 'api', path: '/config' }))) as RedirectError;
    expect(err).toBeInstanceOf(RedirectError);
    expect(err.location).toBe('https://elsewhere.example.com/x (its query and fragment not shown)');
    await c.close();
  });

  it('fails at once on a 101 Switching Protocols it never asked for (with or without Upgrade), naming the request, not after the deadline', async () => {
    for (const head of ['HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nhello', 'HTTP/1.1 101 Switching Protocols\r\n\r\n']) {
      const tcp: TcpServer = createTcpServer((s) => {
        s.on('error', () => undefined);
        s.once('data', () => s.write(head));
      });
      await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
      const c = createHttpClient({ instanceUrl: `http://127.0.0.1:${(tcp.address() as { port: number }).port}/demo`, userAgent: 't', env: {}, retry: { retries: 0 }, timeoutMs: 10_000 });
      const t0 = Date.now();
      for (const method of ['GET', 'PUT'] as const) {
        const err = (await errorOf(c.request({ method, root: 'api', path: '/accounts/1', ...(method === 'PUT' ? { json: {} } : {}) }))) as NetworkError;
        expect(err).toBeInstanceOf(NetworkError);
        expect(err.message).toMatch(new RegExp(`^${method} http://127\\.0\\.0\\.1:\\d+/demo/api/v1/accounts/1: `));
        expect(err.message).toMatch(/: the server answered 101 Switching Protocols( \(to websocket\))?, which svc did not ask for/);
      }
      expect(Date.now() - t0).toBeLessThan(2000);
      await c.close();
      tcp.close();
    }
  });

  it('treats the codes of node:http and its own timeouts as worth another try', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'SVC_CONNECT_TIMEOUT', 'SVC_HEADERS_TIMEOUT', 'SVC_BODY_TIMEOUT', 'UND_ERR_SOCKET']) {
      expect(isRetryableError(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    expect(isRetryableError(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe(false);
    expect(isRetryableError(new SyntaxError('x'))).toBe(false);
  });

  it('lets the process exit as soon as it has its answer (idle keep-alive sockets hold nothing)', async () => {
    server.handle((_req, res) => res.end('{"count":3}'));
    const code = `
      import { createHttpClient } from './src/http/client.ts';
      const c = createHttpClient({ instanceUrl: ${JSON.stringify(server.url())}, userAgent: 't', env: {} });
      const r = await c.request({ method: 'POST', root: 'api', path: '/accounts', json: { count: true }, idempotent: true });
      console.log(JSON.stringify(await r.json()));`; // no close(): the socket stays in the pool
    const r = await runSnippet(code);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('{"count":3}\n');
    // The server keeps idle connections 5 s; a process held by one would take that long.
    expect(r.ms).toBeLessThan(4000);
  });
});

describe('TLS', () => {
  let tls: { key: string; cert: string };
  let stall: TcpServer;
  const held: Socket[] = [];
  beforeAll(async () => {
    tls = await testCertificate();
    // Accepts TCP and never starts TLS: the handshake hangs.
    stall = createTcpServer((s) => held.push(s));
    await new Promise<void>((r) => stall.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((r) => stall.close(() => r()));
  });

  it('times out a TLS handshake that never finishes as a connect timeout', async () => {
    const c = createHttpClient({ instanceUrl: `https://127.0.0.1:${(stall.address() as { port: number }).port}/demo`, userAgent: 't', env: {}, timeoutMs: 150, retry: { retries: 0 } });
    const err = (await errorOf(c.request({ method: 'GET', root: 'api', path: '/config' }))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('SVC_CONNECT_TIMEOUT');
    expect(err.message).toMatch(/no answer in time/);
    await c.close();
  });

  it('keeps Node’s store for the NODE_EXTRA_CA_CERTS Node started with, and reads any other CA file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ca-'));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, tls.cert);
    expect(trustedCa({ env: { NODE_EXTRA_CA_CERTS: ca } }, ca)).toBeUndefined();
    expect(trustedCa({ env: {} }, ca)).toBeUndefined();
    const other = trustedCa({ env: { NODE_EXTRA_CA_CERTS: ca } }, undefined);
    expect(other?.at(-1)).toBe(tls.cert);
    expect(other?.length).toBeGreaterThan(100); // the public roots stay trusted beside it
    const withFile = trustedCa({ caFile: ca, env: { NODE_EXTRA_CA_CERTS: ca } }, ca);
    expect(withFile?.slice(-2)).toEqual([tls.cert, tls.cert]);
    expect(() => trustedCa({ caFile: join(dir, 'missing.pem'), env: {} })).toThrow(/cannot read CA file .*missing\.pem/);
  });

  it('trusts a server through NODE_EXTRA_CA_CERTS as the process started with it (Node’s own store)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ca-'));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, tls.cert);
    const { createServer } = await import('node:https');
    const https = createServer({ key: tls.key, cert: tls.cert }, (_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `https://127.0.0.1:${(https.address() as { port: number }).port}/demo`;
      const code = `
        import { createHttpClient } from './src/http/client.ts';
        import { noteStartupExtraCa } from './src/http/startup-trust.ts';
        noteStartupExtraCa(process.env.NODE_EXTRA_CA_CERTS);
        const c = createHttpClient({ instanceUrl: ${JSON.stringify(url)}, userAgent: 't', env: process.env, retry: { retries: 0 } });
        console.log(JSON.stringify(await (await c.request({ method: 'GET', root: 'api', path: '/config' })).json()));
        await c.close();`;
      expect((await runSnippet(code, { NODE_EXTRA_CA_CERTS: ca })).stdout).toBe('{"ok":true}\n');
      expect((await runSnippet(code)).stderr).toMatch(/certificate is not trusted/);
    } finally {
      await new Promise<void>((r) => https.close(() => r()));
    }
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, UsageError } from '../../src/errors.js';
import { createHttpClient, type HttpClientOptions } from '../../src/http/client.js';
import { HttpStatusError, NetworkError } from '../../src/http/errors.js';
import { parseInstanceUrl } from '../../src/http/urls.js';
import { useForwardProxy } from '../helpers/proxy.js';
import { startTestSandbox, useTestSandbox } from '../helpers/sandbox.js';
import { useSilentServer } from '../helpers/silent-server.js';
import { testCertificate } from '../helpers/tls.js';

const sandbox = useTestSandbox({ record: true });

function client(extra: Partial<HttpClientOptions> = {}) {
  const waits: number[] = [];
  const c = createHttpClient({
    instanceUrl: sandbox().instanceUrl,
    token: sandbox().token(),
    userAgent: 'svc/test',
    env: {},
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { c, waits };
}

describe('the HTTP client against the sandbox', () => {
  it('sends the bearer token and its user agent, and reads JSON', async () => {
    const { c } = client();
    const r = await c.request({ method: 'GET', root: 'api', path: '/config' });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ instance: 'demo' });
    expect(sandbox().sandbox.hooks.requests[0]?.headers['user-agent']).toBe('svc/test');
    await c.close();
  });

  it('retries a 503 after the Retry-After it asks for, then succeeds', async () => {
    sandbox().sandbox.hooks.failNext({ path: '/config', fault: { status: 503, headers: { 'Retry-After': '2' } } });
    const { c, waits } = client();
    const r = await c.request({ method: 'GET', root: 'api', path: '/config' });
    expect(r.status).toBe(200);
    expect(waits).toEqual([2000]);
    await c.close();
  });

  it('retries a query POST marked idempotent on 429 and a dropped connection', async () => {
    sandbox().sandbox.hooks.failNext({ path: '/settings', fault: { status: 429 } });
    sandbox().sandbox.hooks.failNext({ path: '/settings', fault: { drop: true } });
    const { c, waits } = client();
    const r = await c.request({ method: 'GET', root: 'api', path: '/settings' });
    expect(r.status).toBe(200);
    expect(waits).toHaveLength(2);
    await c.close();
  });

  it('never retries a create: a dropped connection fails and nothing is created twice', async () => {
    const count = (): number => (sandbox().sandbox.db.prepare('SELECT count(*) AS n FROM "demo/accounts"').get() as { n: number }).n;
    const before = count();
    sandbox().sandbox.hooks.failNext({ method: 'PUT', path: '/accounts', fault: { drop: true } });
    const { c, waits } = client();
    const err = await c.request({ method: 'PUT', root: 'api', path: '/accounts', json: { lastname: 'Once', currency: 'EUR' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).exitCode).toBe(ExitCode.failure);
    expect(waits).toEqual([]);
    expect(count()).toBe(before);
    await c.close();
  });

  it('gives up after its retries with the last status', async () => {
    sandbox().sandbox.hooks.failNext({ path: '/config', times: 10, fault: { status: 502, body: 'bad gateway' } });
    const { c, waits } = client({ retry: { retries: 2 } });
    const err = (await c.request({ method: 'GET', root: 'api', path: '/config' }).catch((e: unknown) => e)) as HttpStatusError;
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err.status).toBe(502);
    expect(err.exitCode).toBe(1);
    expect(waits).toHaveLength(2);
    await c.close();
  });

  it('maps error statuses onto exit codes and carries the service text', async () => {
    const { c } = client();
    const cases: [() => Promise<unknown>, number, RegExp][] = [
      [() => c.request({ method: 'GET', root: 'api', path: '/accounts/999999' }), ExitCode.notFound, /404: Not Found: accounts 999999 does not exist/],
      [() => createHttpClient({ instanceUrl: sandbox().instanceUrl, token: 'f'.repeat(40), userAgent: 'svc/test', env: {} }).request({ method: 'GET', root: 'api', path: '/config' }), ExitCode.auth, /401: Invalid bearer token \(run svc login\)$/],
      [() => c.request({ method: 'PUT', root: 'api', path: '/accounts', json: { ID: 3 } }), ExitCode.conflict, /409: Conflict: ID present/],
    ];
    for (const [call, code, message] of cases) {
      const err = await call().then(() => undefined, (e: unknown) => e);
      expect(err, String(message)).toBeInstanceOf(HttpStatusError);
      expect((err as HttpStatusError).exitCode).toBe(code);
      expect((err as HttpStatusError).message).toMatch(message);
    }
    const forbidden = client({ token: sandbox().token('field') }).c;
    const err = (await forbidden.request({ method: 'GET', root: 'api', path: '/accounts/1' }).catch((e: unknown) => e)) as HttpStatusError;
    expect(err.exitCode).toBe(ExitCode.auth);
    expect(err.message).toMatch(/403: Access denied/);
    const missing = await c.request({ method: 'HEAD', root: 'api', path: '/accounts/999999', accept: [404] });
    expect(missing.status).toBe(404);
    await c.close();
  });

  it('logs requests with --verbose, never the token', async () => {
    const lines: string[] = [];
    const token = sandbox().token();
    const { c } = client({ log: (l) => lines.push(l), env: { SVC_DEBUG: 'http' } });
    await c.request({ method: 'GET', root: 'api', path: '/config', query: { token: 'secret-in-query' } });
    const text = lines.join('\n');
    expect(text).toMatch(/^→ GET http:\/\/127\.0\.0\.1:\d+\/demo\/api\/v1\/config\?token=%5Bredacted%5D$/m);
    expect(text).toMatch(/^← 200 GET .* \d+ ms$/m);
    expect(text).toMatch(/^ {2}authorization: Bearer \[redacted\]$/m);
    expect(text).not.toContain(token);
    expect(text).not.toContain('secret-in-query');
    await c.close();
  });
});

describe('timeouts', () => {
  const silent = useSilentServer();

  it('gives up on a server that never answers, with exit 1 and the fix', async () => {
    const c = createHttpClient({ instanceUrl: `http://127.0.0.1:${silent.port()}/demo`, userAgent: 'svc/test', env: {}, timeoutMs: 150, retry: { retries: 1, baseMs: 1 } });
    const err = (await c.request({ method: 'GET', root: 'api', path: '/config' }).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.exitCode).toBe(ExitCode.failure);
    expect(err.message).toMatch(/no answer in time; raise --timeout/);
    await c.close();
  });
});

describe('proxies', () => {
  const proxy = useForwardProxy();
  const relayed = proxy.tunnels;

  it('sends requests through HTTP_PROXY, and straight to hosts in NO_PROXY', async () => {
    relayed.length = 0;
    const proxyUrl = proxy.url();
    const via = createHttpClient({ instanceUrl: sandbox().instanceUrl, token: sandbox().token(), userAgent: 'svc/test', env: { HTTP_PROXY: proxyUrl } });
    expect((await via.request({ method: 'GET', root: 'api', path: '/config' })).status).toBe(200);
    expect(relayed).toEqual([new URL(sandbox().instanceUrl).host]);
    await via.close();
    const direct = createHttpClient({ instanceUrl: sandbox().instanceUrl, token: sandbox().token(), userAgent: 'svc/test', env: { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
    expect((await direct.request({ method: 'GET', root: 'api', path: '/config' })).status).toBe(200);
    expect(relayed).toHaveLength(1);
    await direct.close();
  });

  it('tunnels HTTPS through HTTPS_PROXY, trusting the --ca-file on the far side of the tunnel', async () => {
    const tls = await testCertificate();
    const https = await startTestSandbox({ tls });
    const caFile = join(mkdtempSync(join(tmpdir(), 'svc-ca-')), 'ca.pem');
    writeFileSync(caFile, tls.cert);
    try {
      relayed.length = 0;
      const proxyUrl = proxy.url();
      const base = { instanceUrl: https.instanceUrl, token: https.token(), userAgent: 'svc/test', retry: { retries: 0 } };
      const via = createHttpClient({ ...base, caFile, env: { HTTPS_PROXY: proxyUrl } });
      expect(await (await via.request({ method: 'GET', root: 'api', path: '/config' })).json()).toMatchObject({ instance: 'demo' });
      expect(relayed).toEqual([new URL(https.instanceUrl).host]);
      await via.close();
      const untrusted = createHttpClient({ ...base, env: { HTTPS_PROXY: proxyUrl } });
      const err = (await untrusted.request({ method: 'GET', root: 'api', path: '/config' }).catch((e: unknown) => e)) as NetworkError;
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toMatch(/certificate is not trusted/);
      await untrusted.close();
    } finally {
      await https.close();
    }
  });
});

describe('instance URLs and TLS', () => {
  it('refuses plain http for anything but loopback', () => {
    expect(() => parseInstanceUrl('http://erp.example.com/acme')).toThrow(UsageError);
    expect(() => parseInstanceUrl('http://erp.example.com/acme')).toThrow(/refusing plain http:\/\/ for erp\.example\.com/);
    expect(parseInstanceUrl('http://127.0.0.1:8642/demo/').api).toBe('http://127.0.0.1:8642/demo/api/v1');
    expect(parseInstanceUrl('http://localhost:1/x').auth).toBe('http://localhost:1/x/auth/v1');
    expect(parseInstanceUrl('https://erp.example.com/acme').oauth2).toBe('https://erp.example.com/acme/oauth2/v1');
    expect(() => parseInstanceUrl('https://erp.example.com')).toThrow(/needs the instance path/);
    expect(() => parseInstanceUrl('https://erp.example.com/acme/api/v1')).toThrow(/give the instance URL, not an interface root: https:\/\/erp\.example\.com\/acme/);
    expect(() => parseInstanceUrl('ftp://x/y')).toThrow(/must start with https:\/\//);
  });

  it('trusts a self-signed sandbox only with its CA file, and says how when it does not', async () => {
    const tls = await testCertificate();
    const https = await startTestSandbox({ tls });
    const dir = mkdtempSync(join(tmpdir(), 'svc-ca-'));
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, tls.cert);
    try {
      const base = { instanceUrl: https.instanceUrl, token: https.token(), userAgent: 'svc/test', retry: { retries: 0 } };
      const untrusted = createHttpClient({ ...base, env: {} });
      const err = (await untrusted.request({ method: 'GET', root: 'api', path: '/config' }).catch((e: unknown) => e)) as NetworkError;
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toMatch(/certificate is not trusted \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\); pass --ca-file/);
      for (const opts of [{ caFile, env: {} }, { env: { NODE_EXTRA_CA_CERTS: caFile } }]) {
        const trusted = createHttpClient({ ...base, ...opts });
        expect((await trusted.request({ method: 'GET', root: 'api', path: '/config' })).status).toBe(200);
        await trusted.close();
      }
      await untrusted.close();
    } finally {
      await https.close();
    }
  });
});

import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, useTestSandbox } from '../helpers/sandbox.js';

const sandbox = useTestSandbox({ record: false });

describe('sandbox test hooks', () => {
  it('records what crossed the wire, with the status answered', async () => {
    sandbox().sandbox.hooks.record = true;
    await sandbox().call('PUT', 'api/v1/accounts', { json: { lastname: 'Logged', currency: 'EUR' } });
    await sandbox().call('GET', 'api/v1/accounts/999999');
    const [put, get] = sandbox().sandbox.hooks.requests;
    expect(put).toMatchObject({ method: 'PUT', url: '/demo/api/v1/accounts', body: { lastname: 'Logged', currency: 'EUR' }, status: 201 });
    expect(put?.headers['content-type']).toBe('application/json');
    expect(get).toMatchObject({ method: 'GET', url: '/demo/api/v1/accounts/999999', status: 404 });
  });

  it('fails the next matching request with a status and headers, once', async () => {
    sandbox().sandbox.hooks.failNext({ method: 'GET', path: '/config', fault: { status: 503, body: 'try later', headers: { 'Retry-After': '2' } } });
    const other = await sandbox().call('GET', 'api/v1/settings');
    expect(other.status).toBe(200);
    const failed = await sandbox().call('GET', 'api/v1/config');
    expect(failed).toMatchObject({ status: 503, text: 'try later' });
    expect(failed.headers['retry-after']).toBe('2');
    expect((await sandbox().call('GET', 'api/v1/config')).status).toBe(200);
  });

  it('fails several requests when told how many', async () => {
    sandbox().sandbox.hooks.failNext({ path: /accounts\/\d+$/, times: 2, fault: { status: 429 } });
    expect((await sandbox().call('GET', 'api/v1/accounts/1')).status).toBe(429);
    expect((await sandbox().call('HEAD', 'api/v1/accounts/1')).status).toBe(429);
    expect((await sandbox().call('GET', 'api/v1/accounts/1')).status).not.toBe(429);
  });

  it('drops the connection without an answer', async () => {
    sandbox().sandbox.hooks.failNext({ path: '/config', fault: { drop: true } });
    await expect(request(`${sandbox().instanceUrl}/api/v1/config`, { headers: { authorization: `Bearer ${sandbox().token()}` } })).rejects.toThrow(/other side closed|socket/i);
    expect((await sandbox().call('GET', 'api/v1/config')).status).toBe(200);
  });

  it('delays an answer and then gives the real one', async () => {
    sandbox().sandbox.hooks.failNext({ path: '/config', fault: { delayMs: 50 } });
    const r = await sandbox().call('GET', 'api/v1/config');
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ instance: 'demo' });
  });

  it('calls onArrival first for every request, so it may fault that very request', async () => {
    const seen: string[] = [];
    const hooks = sandbox().sandbox.hooks;
    hooks.onArrival = (method, url) => {
      seen.push(`${method} ${url}`);
      if (url.endsWith('/config')) hooks.failNext({ path: url, fault: { status: 503, body: 'faulted on arrival' } });
    };
    expect(await sandbox().call('GET', 'api/v1/config')).toMatchObject({ status: 503, text: 'faulted on arrival' });
    expect((await sandbox().call('GET', '/_sandbox/health', { token: null })).status).toBe(200);
    expect(seen).toEqual(['GET /demo/api/v1/config', 'GET /_sandbox/health']);
    hooks.reset();
    expect(hooks.onArrival).toBeUndefined();
    expect((await sandbox().call('GET', 'api/v1/config')).status).toBe(200);
  });

  it('answers health without a token', async () => {
    const r = await sandbox().call('GET', '/_sandbox/health', { token: null });
    expect(r.json()).toEqual({ ok: true, instances: ['demo'] });
  });
});

describe('a delay fault', () => {
  it('ends when its client goes away, so a long stall does not outlive it', async () => {
    const lines: string[] = [];
    let logged: (line: string) => void = () => undefined;
    const s = await startTestSandbox({ log: (line) => logged(line) });
    try {
      const client = new AbortController();
      s.sandbox.hooks.onArrival = (_method, url) => {
        if (!url.endsWith('/config')) return;
        s.sandbox.hooks.onArrival = undefined;
        s.sandbox.hooks.failNext({ path: url, fault: { delayMs: 60_000 } });
        client.abort(); // As a test kills its client process while the request stalls.
      };
      const handled = new Promise<void>((resolve) => {
        logged = (line) => {
          lines.push(line);
          if (line.includes('/config')) resolve();
        };
      });
      const started = Date.now();
      const sent = request(`${s.instanceUrl}/api/v1/config`, { headers: { authorization: `Bearer ${s.token()}` }, signal: client.signal });
      await expect(sent).rejects.toThrow(/abort/i);
      await handled; // The handler has finished: its 60 s timer is gone.
      expect(Date.now() - started).toBeLessThan(5000);
      expect(lines).toEqual([expect.stringMatching(/^GET \/demo\/api\/v1\/config closed by the client during an injected delay, after \d+ms$/)]);
      expect((await s.call('GET', 'api/v1/config')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('random faults (--faults RATE)', () => {
  it('fail a share of requests in every way, and a retrying client still gets every answer', async () => {
    const flaky = await startTestSandbox({ faultRate: 0.4 });
    try {
      const seen = new Map<string, number>();
      for (let i = 0; i < 60; i++) {
        const r = await request(`${flaky.instanceUrl}/api/v1/config`, { headers: { authorization: `Bearer ${flaky.token()}` } }).then(
          async (res) => {
            await res.body.dump();
            return String(res.statusCode);
          },
          () => 'dropped',
        );
        seen.set(r, (seen.get(r) ?? 0) + 1);
      }
      expect([...seen.keys()].sort()).toEqual(['200', '429', '503', 'dropped']);
      const { createHttpClient } = await import('../../src/http/client.js');
      const client = createHttpClient({ instanceUrl: flaky.instanceUrl, token: flaky.token(), userAgent: 'svc/test', env: {}, retry: { retries: 10, baseMs: 1, capMs: 5 }, sleep: async () => undefined });
      for (let i = 0; i < 40; i++) expect((await client.request({ method: 'GET', root: 'api', path: '/config' })).status).toBe(200);
      await client.close();
      expect((await flaky.call('GET', '/_sandbox/health', { token: null })).status).toBe(200); // health never fails
    } finally {
      await flaky.close();
    }
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { svc, tempConfigDir } from '../helpers/cli.js';
import { startTestSandbox, useTestSandbox } from '../helpers/sandbox.js';
import { useSilentServer } from '../helpers/silent-server.js';
import { testCertificate } from '../helpers/tls.js';
const s = useTestSandbox();
beforeEach(() => {
  s.sandbox.hooks.reset();
  s.sandbox.hooks.record = true;
});

const env = (): Record<string, string> => ({ SVC_URL: s.instanceUrl, SVC_TOKEN: s.token() });

describe('svc over an unreliable network', () => {
  it('retries a read after 503 with Retry-After and succeeds', async () => {
    s.sandbox.hooks.failNext({ method: 'GET', path: '/auth/v1/', fault: { status: 503, headers: { 'Retry-After': '0' } } });
    const r = await svc(['whoami', '-o', 'json'], { configDir: tempConfigDir(), env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'demo', admin: true });
    expect(s.sandbox.hooks.requests.filter((q) => q.url === '/demo/auth/v1/')).toHaveLength(1); // the 503 never reached a handler
  });

  it('does not retry a login after a dropped connection: exit 1, one attempt', async () => {
    s.sandbox.hooks.record = false;
    s.sandbox.hooks.failNext({ method: 'POST', path: '/auth/v1/login', times: 5, fault: { drop: true } });
    const appsecret = s.sandbox.credentials.demo?.applications[0]?.appsecret ?? '';
    const r = await svc(['login', '--user', 'demo', '--password-stdin', '--insecure-storage', '-v'], {
      configDir: tempConfigDir(),
      env: { SVC_URL: s.instanceUrl, SVC_APPSECRET: appsecret },
      stdin: [s.user('demo').password],
    });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/^→ POST /gm)).toHaveLength(1);
    expect(r.stderr).toMatch(/svc: POST http:\/\/127\.0\.0\.1:\d+\/demo\/auth\/v1\/login: .*other side closed/);
  });

  it('shows each request and retry with --verbose, never the token', async () => {
    s.sandbox.hooks.failNext({ method: 'GET', path: '/auth/v1/', fault: { status: 502 } });
    const r = await svc(['whoami', '--verbose', '-o', 'json'], { configDir: tempConfigDir(), env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^← 502 GET http:\/\/127\.0\.0\.1:\d+\/demo\/auth\/v1\/ \d+ ms$/m);
    expect(r.stderr).toMatch(/^ {2}502; retrying in \d+ ms \(attempt 2 of 4\)$/m);
    expect(r.stderr).toMatch(/^ {2}authorization: Bearer \[redacted\]$/m);
    expect(r.stderr).not.toContain(s.token());
  });
});

describe('a server that never answers', () => {
  const silent = useSilentServer();

  it('times out with exit 1 and says how to wait longer', async () => {
    const r = await svc(['whoami', '--timeout', '200ms', '--retries', '1'], {
      configDir: tempConfigDir(),
      env: { SVC_URL: `http://127.0.0.1:${silent.port()}/demo`, SVC_TOKEN: 'x'.repeat(40) },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: GET http:\/\/127\.0\.0\.1:\d+\/demo\/auth\/v1\/: no answer in time; raise --timeout or check the network\n$/);
  });
});

describe('schemes and trust', () => {
  it('refuses plain http to anything but this machine', async () => {
    const r = await svc(['whoami', '--url', 'http://erp.example.com/acme'], { configDir: tempConfigDir(), env: { SVC_TOKEN: 'x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'svc: refusing plain http:// for erp.example.com: the service is HTTPS only (http is allowed for a local sandbox on 127.0.0.1); use https://erp.example.com/acme\n',
    );
  });

  it('trusts an --https sandbox with its CA file, and without it says how', async () => {
    const tls = await testCertificate();
    const https = await startTestSandbox({ tls });
    const caFile = join(mkdtempSync(join(tmpdir(), 'svc-ca-')), 'ca.pem');
    writeFileSync(caFile, tls.cert);
    try {
      const base = { configDir: tempConfigDir(), env: { SVC_URL: https.instanceUrl, SVC_TOKEN: https.token() } };
      const untrusted = await svc(['whoami', '--retries', '0'], base);
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(/certificate is not trusted \([A-Z_]+\); pass --ca-file <CA file> or set NODE_EXTRA_CA_CERTS/);
      const trusted = await svc(['whoami', '--ca-file', caFile, '-o', 'json'], base);
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(JSON.parse(trusted.stdout)).toMatchObject({ name: 'demo' });
    } finally {
      await https.close();
    }
  });
});

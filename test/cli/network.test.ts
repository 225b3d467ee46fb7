import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

  it('--verbose beside SVC_DEBUG=1 logs the headers too (SVC_DEBUG=1 used to replace what --verbose asks)', async () => {
    const r = await svc(['whoami', '--verbose', '-o', 'json'], { configDir: tempConfigDir(), env: { ...env(), SVC_DEBUG: '1' } });
    expect(r.code, r.stderr).toBe(0);
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

describe('SIGTERM (svc as a process: src/cli/main.ts run with tsx)', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  let server: Server;
  let url = '';
  let arrived: () => void = () => undefined;
  beforeAll(async () => {
    // Answers nothing: every request waits until svc is stopped.
    server = createServer((req) => {
      req.resume();
      arrived();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/demo`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  /** svc's main() in a child, stopped with SIGTERM once its first request has arrived. */
  async function terminated(argv: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
    const first = new Promise<void>((r) => (arrived = r));
    const code = "import { main } from './src/cli/main.ts'; main(process.argv.slice(1)).then((c) => { process.exitCode = c; });";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, ...argv], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), SVC_CONFIG_DIR: tempConfigDir(), SVC_URL: url, SVC_TOKEN: 'x'.repeat(40), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (c, sig) => r({ code: c, signal: sig })));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      await Promise.race([first, ended]);
      child.kill('SIGTERM');
      return { ...(await ended), stdout, stderr };
    } finally {
      clearTimeout(killer);
    }
  }

  it('a command without a handler of its own (a read waiting for its answer): one line, exit 130, not death by the signal', async () => {
    const r = await terminated(['accounts', 'get', '1', '-o', 'json']);
    expect({ code: r.code, signal: r.signal, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 130, signal: null, stdout: '', stderr: 'svc: interrupted by SIGTERM\n' });
  });

  it('a command with its own handler keeps it: an export says what it kept, exit 130', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-sigterm-')), 'x.csv');
    const r = await terminated(['accounts', 'export', '--format', 'csv', '--output-file', file]);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
    expect(r.stderr).not.toContain('svc: interrupted by SIGTERM\n');
    expect(r.stderr).toContain(`${file} is untouched`);
    expect(existsSync(file)).toBe(false);
  });
});

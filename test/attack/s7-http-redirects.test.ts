/**
 * s7-http: redirects from a REAL hostile server (node:http / node:https on
 * 127.0.0.1) set as the instance URL. svc's README: "A redirect (any 3xx but
 * 304) is never followed, since the request carries the token: it is exit 1
 * naming where it pointed (without its query and fragment)". Checked for
 * every redirect status, on reads, queries, a login (whose body holds the
 * password) and from https to http, with a second server ("elsewhere", on
 * another port) that must never be reached, and a redirect loop to itself.
 *
 * Everything here is HELD (passes today) unless its name says otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { svc as svcInProcess, tempConfigDir } from '../helpers/cli.js';
import { testCertificate } from '../helpers/tls.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'hostile-test-token-0123456789abcdef0123456789';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_req, res) => res.end();
let hostile: Server;
let hostilePort = 0;
let tlsHostile: Server;
let tlsPort = 0;
let caFile = '';
/** Everything that reached the other origin: it must stay empty. */
const elsewhereHits: { url: string; authorization?: string; body: string }[] = [];
let elsewhere: Server;
let elsewherePort = 0;
let hostileHits = 0;

const listen = (s: Server): Promise<number> => new Promise((r) => s.listen(0, '127.0.0.1', () => r((s.address() as { port: number }).port)));

beforeAll(async () => {
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    hostileHits++;
    handler(req, res);
  };
  hostile = createServer(onRequest);
  hostilePort = await listen(hostile);
  const tls = await testCertificate();
  caFile = join(mkdtempSync(join(tmpdir(), 's7-http-ca-')), 'ca.pem');
  writeFileSync(caFile, tls.cert);
  tlsHostile = createHttpsServer({ key: tls.key, cert: tls.cert }, onRequest);
  tlsPort = await listen(tlsHostile);
  elsewhere = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      elsewhereHits.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ID":1,"lastname":"Elsewhere","name":"demo","token":"x"}');
    });
  });
  elsewherePort = await listen(elsewhere);
});
afterAll(async () => {
  for (const s of [hostile, tlsHostile, elsewhere]) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
  elsewhereHits.length = 0;
  hostileHits = 0;
});

function svc(args: string[], url = `http://127.0.0.1:${hostilePort}/demo`): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${root}bin/svc.js`, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 's7-http-')), SVC_URL: url, SVC_TOKEN: TOKEN, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

const redirectTo = (status: number, location: () => string): Handler => (req, res) => {
  req.resume();
  res.writeHead(status, { location: location(), 'content-type': 'text/html' });
  res.end(`<html>moved ${status}</html>`);
};

function expectRefused(r: { code: number | null; stdout: string; stderr: string }, status: number): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toContain(`was redirected (${status})`);
  expect(r.stderr).toContain('svc does not follow redirects');
  expect(r.stderr).not.toContain(TOKEN);
  expect(elsewhereHits).toEqual([]);
}

describe('HELD: a redirect to another origin is never followed', () => {
  it.each([301, 302, 303, 307, 308])('HELD: %i on a GET: exit 1, one line naming where, the other port never reached', async (status) => {
    handler = redirectTo(status, () => `http://127.0.0.1:${elsewherePort}/demo/api/v1/accounts/1?access_token=LEAK`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expectRefused(r, status);
    expect(r.stderr).toContain(`to http://127.0.0.1:${elsewherePort}/demo/api/v1/accounts/1 (its query and fragment not shown)`);
    expect(r.stderr).not.toContain('LEAK');
    expect(hostileHits).toBe(1);
  });

  it('HELD: 307 on a query (POST with a body): the body and token never go elsewhere', async () => {
    handler = redirectTo(307, () => `http://127.0.0.1:${elsewherePort}/demo/api/v1/accounts`);
    const r = await svc(['accounts', 'query', '--filter', 'lastname = "Secret"', '-o', 'json']);
    expectRefused(r, 307);
  });

  it('HELD: 308 on a login: the password is never sent to the other origin', async () => {
    handler = redirectTo(308, () => `http://127.0.0.1:${elsewherePort}/demo/auth/v1/login`);
    const r = await svcInProcess(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      configDir: tempConfigDir(),
      env: { SVC_URL: `http://127.0.0.1:${hostilePort}/demo`, SVC_APPSECRET: 'a'.repeat(32), NO_COLOR: '1' },
      stdin: ['hunter2-password\n'],
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('was redirected (308)');
    expect(r.stderr).not.toContain('hunter2');
    expect(elsewhereHits).toEqual([]);
  });

  it('HELD: from https to plain http: refused, one line, nothing sent in the clear', async () => {
    handler = redirectTo(301, () => `http://127.0.0.1:${elsewherePort}/demo/api/v1/accounts/1`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--ca-file', caFile], `https://127.0.0.1:${tlsPort}/demo`);
    expectRefused(r, 301);
    expect(r.stderr).toContain(`GET https://127.0.0.1:${tlsPort}/demo/api/v1/accounts/1 was redirected (301) to http://127.0.0.1:${elsewherePort}/`);
  });

  it('HELD: a redirect loop to the same URL ends after one request, in one line', async () => {
    handler = redirectTo(302, () => `http://127.0.0.1:${hostilePort}/demo/api/v1/accounts/1`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expectRefused(r, 302);
    expect(hostileHits).toBe(1);
  });

  it('HELD: a Location carrying terminal escapes or user info is not printed as sent', async () => {
    handler = redirectTo(302, () => `http://user:pw@127.0.0.1:${elsewherePort}/a%1b]0;x%07/b`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expectRefused(r, 302);
    expect(r.stderr).not.toContain('pw@');
    // eslint-disable-next-line no-control-regex
    expect(r.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('HELD: svc api with a full URL on another port is refused before anything is sent', async () => {
    handler = (_req, res) => res.end('{}');
    const r = await svc(['api', `http://127.0.0.1:${elsewherePort}/demo/api/v1/accounts/1`]);
    expect(r.code).toBe(2);
    expect(elsewhereHits).toEqual([]);
    expect(hostileHits).toBe(0);
  });
});

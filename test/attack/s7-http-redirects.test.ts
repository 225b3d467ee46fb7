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
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { svc as svcInProcess, tempConfigDir } from '../helpers/cli.js';
import { testCertificate } from '../helpers/tls.js';
import { type Handler, TOKEN, useHostileServer, useSpawnedSvc } from './s7-support.js';

let handler: Handler = (_req, res) => res.end();
let caFile = '';
/** Everything that reached the other origin: it must stay empty. */
const elsewhereHits: { url: string; authorization?: string; body: string }[] = [];
let hostileHits = 0;

const onRequest: Handler = (req, res) => {
  hostileHits++;
  handler(req, res);
};
const hostile = useHostileServer(onRequest);
const tlsHostile = useHostileServer(onRequest, {
  create: async (listener) => {
    const tls = await testCertificate();
    caFile = join(mkdtempSync(join(tmpdir(), 's7-http-ca-')), 'ca.pem');
    writeFileSync(caFile, tls.cert);
    return createHttpsServer({ key: tls.key, cert: tls.cert }, listener);
  },
});
const elsewhere = useHostileServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    elsewhereHits.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ID":1,"lastname":"Elsewhere","name":"demo","token":"x"}');
  });
});
afterEach(() => {
  elsewhereHits.length = 0;
  hostileHits = 0;
});

/** The built svc pointed at the hostile server, or at `url`. */
const { run: svc } = useSpawnedSvc({ url: hostile.url });

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
    handler = redirectTo(status, () => `http://127.0.0.1:${elsewhere.port}/demo/api/v1/accounts/1?access_token=LEAK`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expectRefused(r, status);
    expect(r.stderr).toContain(`to http://127.0.0.1:${elsewhere.port}/demo/api/v1/accounts/1 (its query and fragment not shown)`);
    expect(r.stderr).not.toContain('LEAK');
    expect(hostileHits).toBe(1);
  });

  it('HELD: 307 on a query (POST with a body): the body and token never go elsewhere', async () => {
    handler = redirectTo(307, () => `http://127.0.0.1:${elsewhere.port}/demo/api/v1/accounts`);
    const r = await svc(['accounts', 'query', '--filter', 'lastname = "Secret"', '-o', 'json']);
    expectRefused(r, 307);
  });

  it('HELD: 308 on a login: the password is never sent to the other origin', async () => {
    handler = redirectTo(308, () => `http://127.0.0.1:${elsewhere.port}/demo/auth/v1/login`);
    const r = await svcInProcess(['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      configDir: tempConfigDir(),
      env: { SVC_URL: `http://127.0.0.1:${hostile.port}/demo`, SVC_APPSECRET: 'a'.repeat(32), NO_COLOR: '1' },
      stdin: ['hunter2-password\n'],
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('was redirected (308)');
    expect(r.stderr).not.toContain('hunter2');
    expect(elsewhereHits).toEqual([]);
  });

  it('HELD: from https to plain http: refused, one line, nothing sent in the clear', async () => {
    handler = redirectTo(301, () => `http://127.0.0.1:${elsewhere.port}/demo/api/v1/accounts/1`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--ca-file', caFile], { url: tlsHostile.url() });
    expectRefused(r, 301);
    expect(r.stderr).toContain(`GET https://127.0.0.1:${tlsHostile.port}/demo/api/v1/accounts/1 was redirected (301) to http://127.0.0.1:${elsewhere.port}/`);
  });

  it('HELD: a redirect loop to the same URL ends after one request, in one line', async () => {
    handler = redirectTo(302, () => `http://127.0.0.1:${hostile.port}/demo/api/v1/accounts/1`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expectRefused(r, 302);
    expect(hostileHits).toBe(1);
  });

  it('HELD: a Location carrying terminal escapes or user info is not printed as sent', async () => {
    handler = redirectTo(302, () => `http://user:pw@127.0.0.1:${elsewhere.port}/a%1b]0;x%07/b`);
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expectRefused(r, 302);
    expect(r.stderr).not.toContain('pw@');
    // eslint-disable-next-line no-control-regex
    expect(r.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('HELD: svc api with a full URL on another port is refused before anything is sent', async () => {
    handler = (_req, res) => res.end('{}');
    const r = await svc(['api', `http://127.0.0.1:${elsewhere.port}/demo/api/v1/accounts/1`]);
    expect(r.code).toBe(2);
    expect(elsewhereHits).toEqual([]);
    expect(hostileHits).toBe(0);
  });
});

/**
 * s7-http: time against svc's HTTP client. A REAL hostile server on 127.0.0.1
 * (node:http, or a node:net listener in a stopped child so that connections
 * never complete) is the instance URL, svc is spawned as `node bin/svc.js`.
 * A body that trickles or never ends, an error body that never ends,
 * Retry-After values that are huge, negative, decimal, past or future dates,
 * 429/503 storms, a connect that never completes, Ctrl-C while a request
 * hangs or while svc waits out a Retry-After. Each must end with one stderr
 * line, the documented exit code, within `--timeout` (and the tries it
 * allows), with memory bounded.
 *
 * Tests marked HELD pass today; the others fail until svc is fixed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Capture, svc as svcInProcess } from '../helpers/cli.js';
import { type Handler, TOKEN, useHostileServer, useSpawnedSvc } from './s7-support.js';

let handler: Handler = (_req, res) => res.end();
/** Each request's arrival time (ms since the epoch) and URL. */
const seen: { at: number; url: string }[] = [];
/** Waiters for the n-th request. */
const waiters: { n: number; resolve: () => void }[] = [];
const hostile = useHostileServer(
  (req, res) => {
    seen.push({ at: Date.now(), url: req.url ?? '' });
    for (const w of waiters.filter((x) => x.n <= seen.length)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    handler(req, res);
  },
  { closeConnectionsAfterEach: true },
);
afterEach(() => {
  seen.length = 0;
  waiters.length = 0;
});
/** The built svc pointed at the hostile server (or at `url`), killed after `killMs` (default 15 s) if still running. */
const { start, run: svc } = useSpawnedSvc({ url: hostile.url });

/** Resolves when the server has received its n-th request of the test. */
function requestArrived(n = 1): Promise<void> {
  if (seen.length >= n) return Promise.resolve();
  return new Promise((resolve) => waiters.push({ n, resolve }));
}

/** Writes `chunk` every `ms` until the response closes. */
function dribble(res: ServerResponse, chunk: string | Buffer, ms: number): void {
  const t = setInterval(() => res.write(chunk), ms);
  hostile.timers.add(t);
  res.on('close', () => clearInterval(t));
}

const oneLine = (stderr: string): void => {
  expect(stderr.endsWith('\n'), stderr).toBe(true);
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^svc: /);
  expect(stderr).not.toContain('unexpected error');
};

describe('bodies that never end', () => {
  it('a 200 that trickles one byte every 200 ms for ever, with --timeout 1s: exit 1 in one line, not a hang', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ID": 1, "lastname": "slow');
      dribble(res, 'o', 200);
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--timeout', '1s', '--retries', '0'], { killMs: 12_000 });
    const what = `exit ${r.code} (${r.signal ?? 'no signal'}) after ${r.ms} ms: ${JSON.stringify(r.stderr)}`;
    // README: "--timeout 30s per answer (a stalled server never hangs svc ...)". Killed by the test at 12 s today.
    expect(r.signal, what).toBeNull();
    expect(r.code, what).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toMatch(/--timeout/);
  }, 20_000);

  it('a 500 whose error text never ends (1 KB every 20 ms), --timeout 1s --retries 0: exit 1 in one line naming the 500, within 8 s', async () => {
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.write('internal error: ');
      dribble(res, 'E'.repeat(1024), 20);
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--timeout', '1s', '--retries', '0'], { killMs: 15_000 });
    const what = `exit ${r.code} (${r.signal ?? 'no signal'}) after ${r.ms} ms: ${JSON.stringify(r.stderr.slice(0, 400))}`;
    expect(r.code, what).toBe(1);
    // Today: after the 11 s deadline, "svc: unexpected error: deadline (set SVC_DEBUG=1 for details)", the whole text read into memory.
    oneLine(r.stderr);
    expect(r.stderr, what).toContain('failed with 500: internal error: EEE');
    expect(r.ms, what).toBeLessThan(8_000);
  }, 20_000);
});

describe('HELD: headers that trickle', () => {
  it('HELD: a status line and headers sent one byte every 100 ms, --timeout 1s --retries 0: exit 1 in about 1 s, one line', async () => {
    handler = (req) => {
      const socket = req.socket;
      socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
      const t = setInterval(() => socket.write('a'), 100);
      hostile.timers.add(t);
      socket.on('close', () => clearInterval(t));
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--timeout', '1s', '--retries', '0']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.ms).toBeLessThan(5_000);
    oneLine(r.stderr);
    expect(r.stderr).toContain('no answer in time; raise --timeout');
  });
});

describe('Retry-After', () => {
  it('a wait longer than svc will wait (Retry-After: 86400) ends at once, and the message says the service asked to wait', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': '86400' });
      res.end('down for maintenance');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(seen).toHaveLength(1);
    oneLine(r.stderr);
    expect(r.stderr).toContain('failed with 503: down for maintenance');
    // A user told only "503" retries at once; the service said when to come back.
    expect(r.stderr, r.stderr).toMatch(/Retry-After|retry after|try again/i);
  });

  it('HELD: a far-future HTTP date is not waited for either (exit 1 at once)', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' });
      res.end('busy');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(seen).toHaveLength(1);
    expect(r.ms).toBeLessThan(5_000);
    oneLine(r.stderr);
  });

  it.each(['-5', '1.5', '+3'])('Retry-After %s (not a delay nor an HTTP date) is ignored: svc backs off as without it, not 0 ms', async (value) => {
    handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': value });
      res.end('busy');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--verbose']);
    expect(r.code).toBe(1);
    const waits = [...r.stderr.matchAll(/503; retrying in (\d+) ms/g)].map((m) => Number(m[1]));
    expect(waits).toHaveLength(3);
    // Read today as dates in the past (Date.parse('-5') is the year -5): three tries in a burst.
    // Full-jitter backoff gives 0 ms three times in a row with a chance below 1 in 10^8.
    expect(waits.some((w) => w > 0), `waits ${waits.join(', ')} ms`).toBe(true);
  });

  it('HELD: a Retry-After of 1 s is honoured each time, and the read succeeds on the third try', async () => {
    handler = (_req, res) => {
      if (seen.length < 3) {
        res.writeHead(429, { 'retry-after': '1' });
        res.end('slow down');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ID":1,"lastname":"Patient"}');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ID: 1, lastname: 'Patient' });
    expect(seen).toHaveLength(3);
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect((seen[2]?.at ?? 0) - (seen[1]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('HELD: a past HTTP date means now: retried at once; a 429 storm ends after 4 tries with exit 1 in one line', async () => {
    handler = (_req, res) => {
      res.writeHead(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' });
      res.end('{"error":"rate limited"}');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(seen).toHaveLength(4);
    expect(r.ms).toBeLessThan(5_000);
    oneLine(r.stderr);
    expect(r.stderr).toContain('failed with 429');
  });

  it('HELD: a 503 storm against a create (PUT) is not retried: one try, exit 1', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(503, { 'retry-after': '0' });
      res.end('busy');
    };
    const r = await svc(['accounts', 'create', 'lastname=Once', 'currency=EUR', 'type=CUSTOMER']);
    if (r.code === 2) throw new Error(`the create was refused before sending: ${r.stderr}`);
    expect(r.code).toBe(1);
    expect(seen).toHaveLength(1);
    oneLine(r.stderr);
  });

  it('on a terminal, a Retry-After wait of several seconds is announced on stderr before svc goes quiet', async () => {
    handler = (_req, res) => {
      if (seen.length < 2) {
        res.writeHead(503, { 'retry-after': '3' });
        res.end('busy');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ID":1,"lastname":"Waited"}');
    };
    const stdout = new Capture(true, 120);
    const r = await svcInProcess(['accounts', 'get', '1', '-o', 'json'], { tty: true, stdout, env: { SVC_URL: `http://127.0.0.1:${hostile.port}/demo`, SVC_TOKEN: TOKEN, NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toHaveLength(2);
    // Three silent seconds here; with the default --timeout a Retry-After of up to 130 s is waited out without a word.
    expect(r.stderr, 'nothing told the user svc was waiting: ' + JSON.stringify(r.stderr)).toMatch(/retry|wait|again/i);
  });
});

describe('connections that never complete', () => {
  let holder: ChildProcess | undefined;
  let blackhole = 0;
  const fillers: Socket[] = [];
  beforeAll(async () => {
    // A listener with a backlog of 1 in a child that is then stopped: nobody accepts, the backlog fills, and
    // the kernel drops further SYNs, so a connect never completes (a server that "never accepts").
    holder = spawn(process.execPath, ['-e', "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>console.log(s.address().port))"], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    blackhole = await new Promise<number>((resolve) => holder?.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    holder.kill('SIGSTOP');
    for (let i = 0; i < 4; i++) {
      const sock = connect(blackhole, '127.0.0.1');
      sock.on('error', () => undefined);
      fillers.push(sock);
    }
  });
  afterAll(() => {
    for (const sock of fillers) sock.destroy();
    holder?.kill('SIGKILL');
  });

  it('HELD: --timeout 1s --retries 1 against a listener that never accepts: exit 1 in about 2 s, one line saying to raise --timeout', async () => {
    const r = await start(['accounts', 'get', '1', '-o', 'json', '--timeout', '1s', '--retries', '1'], { killMs: 15_000, url: `http://127.0.0.1:${blackhole}/demo` }).ended;
    expect(r.code, r.stderr).toBe(1);
    expect(r.ms).toBeLessThan(8_000);
    oneLine(r.stderr);
    expect(r.stderr).toContain('no answer in time; raise --timeout');
  });
});

describe('Ctrl-C', () => {
  it('HELD: SIGINT while a read waits for headers ends svc at once (killed by SIGINT: the shell shows 130), nothing on stdout', async () => {
    handler = () => undefined; // never answers
    const run = start(['accounts', 'get', '1', '-o', 'json']);
    await requestArrived();
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const r = await run.ended;
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(r.code === 130 || r.signal === 'SIGINT', `${r.code} ${r.signal}`).toBe(true);
    expect(r.stdout).toBe('');
  });

  it('SIGTERM while a read waits for headers: exit 130 as the Exit codes table says ("stopped by Ctrl-C (SIGINT) or SIGTERM"), not death by signal (143 in a shell)', async () => {
    handler = () => undefined; // never answers
    const run = start(['accounts', 'get', '1', '-o', 'json']);
    await requestArrived();
    const t0 = Date.now();
    run.child.kill('SIGTERM');
    const r = await run.ended;
    expect(Date.now() - t0).toBeLessThan(2_000);
    // Today: killed by SIGTERM (a shell shows 143; cron, systemd and Kubernetes see "terminated by signal").
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  it('HELD: SIGINT while svc waits out a Retry-After of 60 s ends it at once', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': '60' });
      res.end('busy');
    };
    const run = start(['accounts', 'get', '1', '-o', 'json']);
    await requestArrived();
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const r = await run.ended;
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(r.code === 130 || r.signal === 'SIGINT', `${r.code} ${r.signal}`).toBe(true);
  });

  it('HELD: SIGINT while an export page trickles: exit 130, one line, nothing at the target', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"ID": 1, "lastname": "slow');
      dribble(res, 'o', 100);
    };
    const file = join(mkdtempSync(join(tmpdir(), 's7-http-exp-')), 'x.csv');
    const run = start(['accounts', 'export', '--format', 'csv', '--output-file', file]);
    await requestArrived();
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const r = await run.ended;
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${file} is untouched`);
  });
});

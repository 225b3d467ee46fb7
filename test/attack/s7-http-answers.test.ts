/**
 * s7-http: svc's HTTP client against a hostile REAL server (node:http on
 * 127.0.0.1) set as the instance URL, svc spawned as `node bin/svc.js`. What
 * the server answers is wrong in shape: a 200 that is not JSON (a proxy's
 * sign-in page, an empty body, a body cut short by a lying Content-Length, gzip
 * that was never asked for), a 304 nobody asked for, nesting no service
 * sends, terminal escapes in an error text, huge headers, a dropped
 * connection. Each must end in one stderr line naming the request and the
 * problem, with the documented exit code.
 *
 * Tests marked HELD pass today (claims that held); the others fail until
 * svc is fixed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Ended, type Handler, useHostileServer, useSpawnedSvc } from './s7-support.js';

let handler: Handler = (_req, res) => res.end();
const seen: { method: string; url: string; authorization?: string }[] = [];
const hostile = useHostileServer((req, res) => {
  seen.push({ method: req.method ?? '', url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
  handler(req, res);
});
afterEach(() => {
  seen.length = 0;
});
/** The built svc pointed at the hostile server; killed after 15 s if still running (the test then fails on its exit). */
const { run: svc } = useSpawnedSvc({ url: hostile.url });

/** One stderr line starting `svc: `, naming the request, not svc's own "unexpected error". */
function expectOneLineNamingRequest(r: Ended, path: string): void {
  expect(r.stderr.endsWith('\n'), r.stderr).toBe(true);
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(/^svc: /);
  expect(r.stderr, 'the message names the request that got the answer').toContain(`http://127.0.0.1:${hostile.port}/demo/api/v1/${path}`);
  expect(r.stderr, 'a bad answer from the server is not svc crashing').not.toContain('unexpected error');
}

describe('a 200 whose body is not the JSON svc asked for', () => {
  it('an HTML sign-in page from a proxy: exit 1, one line naming the request and saying the answer is not JSON', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><head><title>Corporate proxy</title></head><body><form>Please sign in</form></body></html>');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectOneLineNamingRequest(r, 'accounts/1');
    expect(r.stderr).toMatch(/not JSON|text\/html/i);
  });

  it('an empty 200: exit 1, one line naming the request (not "unexpected end of a JSON array": nothing was an array)', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expectOneLineNamingRequest(r, 'accounts/1');
    expect(r.stderr).not.toContain('JSON array');
  });

  it('a body cut short by a Content-Length smaller than what was sent: exit 1, one line naming the request', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '9' });
      res.end('{"ID": 1, "lastname": "Cut"}');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectOneLineNamingRequest(r, 'accounts/1');
  });

  it('gzip svc never asked for (Content-Encoding: gzip): exit 1, one line naming the request, no raw bytes on the terminal', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0xae, 0x05, 0x00]));
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expectOneLineNamingRequest(r, 'accounts/1');
    // eslint-disable-next-line no-control-regex
    expect(r.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('a record nested 100,000 levels deep: svc does not crash with "Maximum call stack size exceeded"', async () => {
    const depth = 100_000;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"ID":1,"lastname":"Deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.stderr).not.toContain('call stack');
    // Either printed, or refused in one line naming the request.
    if (r.code === 0) expect(JSON.parse(r.stdout)).toMatchObject({ ID: 1, lastname: 'Deep' });
    else expectOneLineNamingRequest(r, 'accounts/1');
  });
});

describe('a 304 Not Modified that svc never asked for', () => {
  it('get without --if-none-match answered 304: not exit 0 with an empty stdout', async () => {
    handler = (_req, res) => {
      res.writeHead(304);
      res.end();
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(seen[0]?.url).toBe('/demo/api/v1/accounts/1');
    // The request had no If-None-Match: "unchanged" since what? A script reading stdout got nothing and exit 0.
    expect(r.stderr).not.toContain('is unchanged');
    expect(r.code, `${r.code} ${r.stderr}`).toBe(1);
    expectOneLineNamingRequest(r, 'accounts/1');
  });

  it('HELD: get with --if-none-match answered 304 says unchanged, exit 0', async () => {
    handler = (_req, res) => {
      res.writeHead(304, { etag: '"abc"' });
      res.end();
    };
    const r = await svc(['accounts', 'get', '1', '--if-none-match', '"abc"', '-o', 'json']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toContain('unchanged');
  });
});

describe("the server's text on svc's terminal", () => {
  it('an error text with terminal escapes (title, clear screen, colour, carriage return) is shown without them', async () => {
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('\u001b]0;owned\u0007\u001b[2J\u001b[31mred\rFAKE: svc: all good\u0008\u0008\u009b31m');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json', '--retries', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('failed with 500');
    // The project's own rule (src/util/shown.ts, src/auth/oauth/errors.ts): outside text cannot act on the terminal.
    // eslint-disable-next-line no-control-regex
    expect(r.stderr.trimEnd(), `control characters reached stderr: ${JSON.stringify(r.stderr)}`).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('a non-JSON 200 whose first bytes are terminal escapes: none reach stderr', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('\u001b[2J\u001b]0;owned\u0007<html>gotcha</html>');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toContain('\u0007');
  });
});

describe('HELD: answers svc already handles', () => {
  it('HELD: records with __proto__ and constructor keys are printed faithfully and pollute nothing', async () => {
    const record = '{"ID":1,"lastname":"Proto","__proto__":{"polluted":"yes","lastname":"FromProto"},"constructor":{"prototype":{"z":1}}}';
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(record);
    };
    const json = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(record));
    expect(Object.keys(JSON.parse(json.stdout) as object)).toEqual(['ID', 'lastname', '__proto__', 'constructor']);
    const csv = await svc(['accounts', 'get', '1', '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toContain('lastname,Proto');
    expect(csv.stdout).toContain('__proto__,"{""polluted"":""yes"",""lastname"":""FromProto""}"');
  });

  it('HELD: a query page of records with __proto__ keys comes out as sent (-o json), and CSV takes nothing from them', async () => {
    const page = '[{"ID":1,"lastname":"A","__proto__":{"ID":99,"firstname":"FromProto"}},{"ID":2,"lastname":"B","__proto__":null}]';
    handler = (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(page);
      });
    };
    const json = await svc(['accounts', 'query', '--limit', '2', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(page));
    const csv = await svc(['accounts', 'query', '--limit', '2', '--fields', 'ID,lastname,firstname', '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('ID,lastname,firstname\n1,A,\n2,B,\n');
  });

  it('HELD: headers past 16 KB: exit 1, one line naming the request', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'x-huge': 'a'.repeat(100_000), 'content-type': 'application/json' });
      res.end('{}');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expectOneLineNamingRequest(r, 'accounts/1');
    expect(r.stderr).toMatch(/header/i);
  });

  it('HELD: a server that closes the socket mid-body: exit 1, one line saying the other side closed the connection', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"ID": 1, "lastname": "Cut ');
      setImmediate(() => res.socket?.destroy());
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expectOneLineNamingRequest(r, 'accounts/1');
    expect(r.stderr).toContain('closed the connection before the answer was complete');
  });

  it('HELD: a server that drops every connection before answering: a read is tried 4 times, then exit 1 in one line', async () => {
    handler = (req) => req.socket.destroy();
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(seen).toHaveLength(4);
    expectOneLineNamingRequest(r, 'accounts/1');
  });

  it('HELD: invalid UTF-8 in a value is replaced by U+FFFD, the rest of the record intact', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat([Buffer.from('{"ID":1,"lastname":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b","city":"Köln"}')]));
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ID: 1, lastname: 'a\ufffd\ufffdb', city: 'Köln' });
  });

  it('HELD: an HTML 401 page becomes one line with exit 4 and the fix for the token svc sent (from SVC_TOKEN here)', async () => {
    handler = (_req, res) => {
      res.writeHead(401, { 'content-type': 'text/html' });
      res.end('<html>\n<head><title>401</title></head>\n<body>Sign in</body>\n</html>\n');
    };
    const r = await svc(['accounts', 'get', '1', '-o', 'json']);
    expect(r.code).toBe(4);
    expectOneLineNamingRequest(r, 'accounts/1');
    expect(r.stderr).toContain("(set SVC_TOKEN to a valid token, or unset it and run 'svc login --url ");
  });
});

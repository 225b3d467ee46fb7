/**
 * `svc api [METHOD] PATH`: flags → options and options → request without a
 * server (nested keys, typed values, files, standard input, hostile keys and
 * sizes, where a path may lead), then what a user sees against a real sandbox.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandInput } from '../../../src/cli/command.js';
import { apiSpec } from '../../../src/commands/api/command.js';
import { buildParams, MAX_KEY_DEPTH, parseField, queryPairs, type FieldSources } from '../../../src/commands/api/fields.js';
import { toApiOptions, type ApiOptions } from '../../../src/commands/api/options.js';
import { locate, parseTarget, toApiRequest, toPagePlan, withQuery } from '../../../src/commands/api/request.js';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { parseInstanceUrl } from '../../../src/http/urls.js';
import { version } from '../../../src/version.js';
import { sandboxCli } from '../../helpers/cli.js';

/** Sources for tests: files from a map, standard input as given. */
function sources(files: Record<string, string> = {}, stdin = ''): FieldSources {
  return { file: (p) => files[p] ?? '', stdin: () => stdin };
}

function options(args: string[], flags: CommandInput['flags'] = {}): ApiOptions {
  // As commander hands them over: the variadic argument's words in one array.
  return apiSpec.toOptions({ args: [args], flags }) as ApiOptions;
}

/** The message of the UsageError (exit 2) that `fn` throws. */
function refusal(fn: () => unknown): string {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(UsageError);
  expect((thrown as UsageError).exitCode).toBe(ExitCode.usage);
  return (thrown as UsageError).message;
}

/** The JSON body the fields make (-f strings, -F typed). */
function body(raw: string[], typed: string[] = [], src = sources()): string {
  const fields = [...raw.map((f) => parseField(f, false)), ...typed.map((f) => parseField(f, true))];
  return JSON.stringify(buildParams(fields, src));
}

const roots = parseInstanceUrl('https://erp.example.com/acme');

describe('svc api: flags → options', () => {
  it('takes PATH alone, or METHOD PATH, or -X; the method defaults to GET, POST with a body', () => {
    expect(options(['accounts/42'])).toEqual({
      target: { kind: 'path', root: 'api', path: '/accounts/42' },
      fields: [],
      headers: [],
      include: false,
      paginate: false,
      dryRun: false,
    });
    expect(options(['patch', 'accounts/42']).method).toBe('PATCH');
    expect(options(['accounts/42'], { method: 'delete' }).method).toBe('DELETE');
    expect(options(['DELETE', 'accounts/42'], { method: 'DELETE' }).method).toBe('DELETE');
    expect(options(['accounts'], { dryRun: true, paginate: true })).toMatchObject({ dryRun: true, paginate: true });
    expect(options(['accounts'], { include: true, input: '-' })).toMatchObject({ include: true, input: '-' });
  });

  it('refuses unknown and conflicting methods', () => {
    expect(refusal(() => options(['accounts', '42']))).toBe("unknown method 'accounts' before the path (svc api [METHOD] PATH) (use GET, HEAD, POST, PUT, PATCH, DELETE)");
    expect(refusal(() => options(['x'], { method: 'OPTIONS' }))).toBe("unknown method 'OPTIONS' for -X (use GET, HEAD, POST, PUT, PATCH, DELETE)");
    expect(refusal(() => options(['GET', 'x'], { method: 'POST' }))).toBe('two methods given (GET and -X POST); give one');
    expect(refusal(() => options(['GET', 'a', 'b']))).toBe('svc api takes [METHOD] PATH, not 3 words; quote a path with spaces');
  });

  it('places a path under the data, auth or oauth2 interface, with its query string', () => {
    expect(parseTarget('/accounts/42?extdata=1')).toEqual({ kind: 'path', root: 'api', path: '/accounts/42?extdata=1' });
    expect(parseTarget('config')).toEqual({ kind: 'path', root: 'api', path: '/config' });
    expect(parseTarget('auth')).toEqual({ kind: 'path', root: 'auth', path: '/' });
    expect(parseTarget('auth/login')).toEqual({ kind: 'path', root: 'auth', path: '/login' });
    expect(parseTarget('/oauth2/userinfo?x=1')).toEqual({ kind: 'path', root: 'oauth2', path: '/userinfo?x=1' });
    expect(parseTarget('authors/1')).toEqual({ kind: 'path', root: 'api', path: '/authors/1' });
    expect(parseTarget('https://erp.example.com/acme/api/v1/x')).toEqual({ kind: 'url', url: 'https://erp.example.com/acme/api/v1/x' });
  });

  it('refuses a path a URL parser would change: dot segments however spelt, backslashes, fragments', () => {
    for (const p of ['accounts/../config', './config', 'a/%2e%2E/b', 'a/.%2e', '..']) {
      expect(refusal(() => parseTarget(p))).toBe(`the path '${p}' has a '.' or '..' segment; svc api sends paths as given: name the path itself`);
    }
    expect(refusal(() => parseTarget('a\\..\\b'))).toMatch(/holds a backslash/);
    expect(refusal(() => parseTarget('accounts#x'))).toMatch(/holds a '#'; write it as %23/);
    expect(refusal(() => options(['']))).toBe("give a path, e.g. 'svc api accounts/42' or 'svc api config'");
    // A secret in the query string is not repeated in the message.
    expect(refusal(() => parseTarget('a/../b?password=hunter2&x=1'))).toBe("the path 'a/../b?password=[redacted]&x=1' has a '.' or '..' segment; svc api sends paths as given: name the path itself");
    // A dot in the query string is data.
    expect(parseTarget('accounts?x=..')).toEqual({ kind: 'path', root: 'api', path: '/accounts?x=..' });
  });

  it('reads headers as Name: value, joins repeats, and refuses the token and framing headers', () => {
    expect(options(['x'], { header: ['Accept: text/csv', 'X-A: 1', 'x-a:2', 'If-Match:  "e1" '] }).headers).toEqual([
      ['accept', 'text/csv'],
      ['x-a', '1, 2'],
      ['if-match', '"e1"'],
    ]);
    expect(refusal(() => options(['x'], { header: ['authorization: Bearer abc'] }))).toBe(
      "-H Authorization is refused: svc api sends the profile's token; to send another one use --token-file FILE or SVC_TOKEN",
    );
    expect(refusal(() => options(['x'], { header: ['Host: evil.example'] }))).toBe('-H Host: svc sets this header itself; leave it out');
    expect(refusal(() => options(['x'], { header: ['X-A: 1\r\nX-B: 2'] }))).toBe('-H X-A: a header value cannot hold a line break or NUL');
    expect(refusal(() => options(['x'], { header: ['no colon'] }))).toBe("-H 'no colon': give a header as 'Name: value'");
    expect(refusal(() => options(['x'], { header: ['Bad Name: 1'] }))).toBe("-H 'Bad Name': give a header as 'Name: value'");
  });

  it('refuses --input with fields, standard input twice, -F key=@, and --paginate with -i or another method', () => {
    expect(refusal(() => options(['x'], { input: 'b.json', rawField: ['a=1'] }))).toBe('--input sends the body as given: drop -f/-F (or put those fields in the file)');
    expect(refusal(() => options(['x'], { field: ['a=@-', 'b=@-'] }))).toMatch(/^standard input can be read once/);
    expect(refusal(() => options(['x'], { field: ['a=@'] }))).toBe('-F key=@ needs a file name: key=@FILE, or key=@- for standard input');
    expect(refusal(() => options(['accounts'], { paginate: true, include: true }))).toBe('--paginate prints one JSON array of every page: drop -i');
    expect(refusal(() => options(['GET', 'accounts'], { paginate: true }))).toMatch(/^--paginate works on a query, a POST on a family's collection .* not GET$/);
  });
});

describe('svc api: fields → body', () => {
  it('nests keys into objects and lists, as gh api does', () => {
    expect(body(['fields[]=ID', 'fields[]=lastname', 'filters[type]=1', 'filters[ID][>=]=5'])).toBe(
      '{"fields":["ID","lastname"],"filters":{"type":"1","ID":{">=":"5"}}}',
    );
    // A list's last object takes keys until one repeats; `key[]` alone is an empty list.
    expect(body(['items[][name]=a', 'items[][qty]=1', 'items[][name]=b', 'tags[]'])).toBe('{"items":[{"name":"a","qty":"1"},{"name":"b"}],"tags":[]}');
    // The key ends at the first '=' outside brackets; the value keeps the rest.
    expect(body(['a[!=]=x=y', 'b==', 'c='])).toBe('{"a":{"!=":"x=y"},"b":"=","c":""}');
  });

  it('types -F values: true, false, null, numbers; everything else, and all of -f, stays text', () => {
    expect(body(['s=true', 'n=1'], ['t=true', 'f=false', 'z=null', 'i=42', 'neg=-7', 'd=1.5', 'e=2e3', 'lead=007', 'word=abc', 'plus=+1', 'empty='])).toBe(
      '{"s":"true","n":"1","t":true,"f":false,"z":null,"i":42,"neg":-7,"d":1.5,"e":2000,"lead":"007","word":"abc","plus":"+1","empty":""}',
    );
    expect(refusal(() => body([], ['id=9007199254740993']))).toBe(
      "-F 'id': the number is too large to send exactly (past 2^53 − 1); pass it with -f to send it as a string",
    );
    expect(body([], ['big=9007199254740991'])).toBe('{"big":9007199254740991}');
    expect(refusal(() => body([], ['x=1e999']))).toMatch(/too large/);
  });

  it('reads @FILE and @- as text (not parsed), and leaves @ in -f alone', () => {
    const src = sources({ 'note.txt': 'line 1\nline 2\n', 'q.json': '{"a":1}' }, 'from stdin\n');
    expect(body(['at=@note.txt'], ['note=@note.txt', 'q=@q.json', 'in=@-'], src)).toBe(
      '{"at":"@note.txt","note":"line 1\\nline 2\\n","q":"{\\"a\\":1}","in":"from stdin\\n"}',
    );
  });

  it('keeps prototype keys as plain data: nothing reaches Object.prototype', () => {
    const json = body(['__proto__[x]=1', 'constructor[prototype][y]=1', 'a[__proto__][polluted]=1', 'toString=s', 'hasOwnProperty[]=h'], ['__proto__[z]=true']);
    expect(JSON.parse(json)).toEqual(
      JSON.parse('{"__proto__":{"x":"1","z":true},"constructor":{"prototype":{"y":"1"}},"a":{"__proto__":{"polluted":"1"}},"toString":"s","hasOwnProperty":["h"]}'),
    );
    expect(json).toBe('{"__proto__":{"x":"1","z":true},"constructor":{"prototype":{"y":"1"}},"a":{"__proto__":{"polluted":"1"}},"toString":"s","hasOwnProperty":["h"]}');
    const probe: Record<string, unknown> = {};
    for (const k of ['x', 'y', 'z', 'polluted']) expect(probe[k], k).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('y');
    // A bare __proto__ is a member too, and so is a list under it.
    expect(body(['__proto__=1'])).toBe('{"__proto__":"1"}');
    expect(body(['__proto__[]=1', '__proto__[]=2'])).toBe('{"__proto__":["1","2"]}');
  });

  it('refuses a key given twice, a value that is also an object or list, and malformed keys (never echoing the value)', () => {
    expect(refusal(() => body(['a=1', 'a=2']))).toBe("-f 'a': 'a' is given twice; use key[]=value for a list");
    expect(refusal(() => body(['a=1', 'a[b]=secret']))).toBe("-f 'a[b]': 'a' already holds a value; a key cannot be both a value and an object");
    expect(refusal(() => body(['a=1', 'a[]=secret']))).toBe("-f 'a[]': 'a' already holds a value that is not a list; use one form for a key");
    expect(refusal(() => body(['=secret']))).toBe("-f '=secret': a field needs a key before '=' or '[', e.g. -f name=value");
    expect(refusal(() => body(['[a]=secret']))).toMatch(/^-f '\[a\]=secret': a field needs a key/);
    expect(refusal(() => body(['a[b=secret']))).toBe("-f 'a': a '[' has no ']' (write key[sub]=value)");
    expect(refusal(() => body(['a[][]=1']))).toBe("-f 'a[]': lists of lists (key[][]) cannot be written as fields; send the body with --input");
    expect(refusal(() => body(['a]=secret']))).toBe("-f 'a': unexpected ']' after the key; write key[sub]=value");
    expect(refusal(() => body(['a[b]x=secret']))).toBe("-f 'a[b]': unexpected 'x' after the key; write key[sub]=value");
    expect(refusal(() => body(['lonely']))).toBe("-f 'lonely' needs a value: -f lonely=VALUE (or lonely[] alone for an empty list)");
  });

  it(`limits nesting to ${MAX_KEY_DEPTH} levels, and refuses a deeper key without walking all of it`, () => {
    const key = (n: number): string => `a${'[b]'.repeat(n - 1)}`;
    expect(JSON.parse(body([`${key(MAX_KEY_DEPTH)}=1`]))).toBeTypeOf('object');
    expect(refusal(() => body([`${key(MAX_KEY_DEPTH + 1)}=1`]))).toMatch(new RegExp(`nests deeper than ${MAX_KEY_DEPTH} levels; send such a body with --input$`));
    const t0 = performance.now();
    const message = refusal(() => body([`${key(1_000_000)}=1`]));
    expect(performance.now() - t0).toBeLessThan(500);
    expect(message.length).toBeLessThan(200);
  });

  it('carries huge values and many fields intact', () => {
    const big = 'é'.repeat(4 * 1024 * 1024);
    const src = sources({ 'big.txt': big });
    const parsed = JSON.parse(body([`a=${big}`], ['b=@big.txt'], src)) as { a: string; b: string };
    expect(parsed.a === big && parsed.b === big).toBe(true);
    const many = Array.from({ length: 20_000 }, (_, i) => `k${i}=${i}`);
    expect(Object.keys(JSON.parse(body(many)) as object)).toHaveLength(20_000);
    const list = Array.from({ length: 20_000 }, (_, i) => `ids[]=${i}`);
    expect((JSON.parse(body([], list)) as { ids: number[] }).ids).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
  });

  it('makes query parameters for GET: keys as written, values as text, empty lists left out', () => {
    const fields = [parseField('expand[]=a', false), parseField('extdata=1', true), parseField('z=null', true), parseField('none[]', true), parseField('s=a b&c', false)];
    expect(queryPairs(fields, sources())).toEqual([
      ['expand[]', 'a'],
      ['extdata', '1'],
      ['z', ''],
      ['s', 'a b&c'],
    ]);
    expect(withQuery('/accounts/42', [['a', '1']])).toBe('/accounts/42?a=1');
    expect(withQuery('/accounts/42?x=1', [['expand[]', 'a b']])).toBe('/accounts/42?x=1&expand%5B%5D=a+b');
    expect(withQuery('/accounts/42?', [['a', '1']])).toBe('/accounts/42?a=1');
    expect(withQuery('/accounts/42', [])).toBe('/accounts/42');
  });
});

describe('svc api: options → request', () => {
  const at = (path: string) => locate(parseTarget(path), roots);

  it('keeps every request under the instance: paths under their interface, URLs only under the instance', () => {
    expect(at('accounts/42')).toEqual({ kind: 'path', root: 'api', path: '/accounts/42' });
    expect(at('https://erp.example.com/acme/api/v1/accounts/42?extdata=1')).toEqual({ root: 'api', path: '/accounts/42?extdata=1' });
    expect(at('HTTPS://ERP.example.com:443/acme/auth/v1')).toEqual({ root: 'auth', path: '/' });
    expect(at('https://erp.example.com/acme/oauth2/v1/userinfo')).toEqual({ root: 'oauth2', path: '/userinfo' });
    for (const url of [
      'https://evil.example/acme/api/v1/accounts',
      'http://erp.example.com/acme/api/v1/accounts',
      'https://erp.example.com:8443/acme/api/v1/accounts',
      'https://erp.example.com.evil.example/acme/api/v1/accounts',
      'https://user:pw@erp.example.com/acme/api/v1/accounts',
      'https://erp.example.com/acme2/api/v1/accounts',
      'https://erp.example.com/acme/other',
      'https://erp.example.com/acme/api/v1/../../../admin',
      'https://erp.example.com/acme/api/v1/%2e%2e/%2e%2e/x',
      'https://erp.example.com/acme/api/v1/accounts#frag',
    ]) {
      expect(refusal(() => at(url)), url).toMatch(/^refusing .*: svc api sends the token to https:\/\/erp\.example\.com\/acme only; give a path such as accounts\/42, or a URL under the instance$/);
    }
    // The password of a refused URL is not repeated.
    expect(refusal(() => at('https://user:hunter2@evil.example/x'))).not.toContain('hunter2');
    expect(refusal(() => at('ftp://erp.example.com/acme/api/v1/x'))).toMatch(/^refusing/);
  });

  it('sends fields as a JSON body, or as the query string with GET; a query is safe to send twice', () => {
    const q = toApiRequest(options(['accounts'], { rawField: ['fields[]=ID'], field: ['limit=2'] }), at('accounts'), sources());
    expect(q.spec).toEqual({ method: 'POST', root: 'api', path: '/accounts', raw: { text: '{"fields":["ID"],"limit":2}', type: 'application/json' }, idempotent: true });
    expect(q.query?.family.name).toBe('accounts');
    const get = toApiRequest(options(['accounts/42'], { method: 'GET', field: ['extdata=1', 'tags=true'] }), at('accounts/42?expand[]=x'), sources());
    expect(get.spec).toEqual({ method: 'GET', root: 'api', path: '/accounts/42?expand[]=x&extdata=1&tags=true' });
    const put = toApiRequest(options(['PUT', 'accounts'], { rawField: ['lastname=x'] }), at('accounts'), sources());
    expect(put.spec).toMatchObject({ method: 'PUT', raw: { text: '{"lastname":"x"}' } });
    expect(put.spec.idempotent).toBeUndefined();
    expect(put.query).toBeUndefined();
    // POST on a record or on a family without list is no query.
    expect(toApiRequest(options(['POST', 'accounts/42']), at('accounts/42'), sources()).query).toBeUndefined();
    expect(toApiRequest(options(['POST', 'nosuchfamily']), at('nosuchfamily'), sources()).spec.idempotent).toBeUndefined();
  });

  it('sends --input as given: JSON typed as JSON, other text untyped, or as -H Content-Type says', () => {
    const json = toApiRequest(options(['PUT', 'accounts'], { input: 'a.json' }), at('accounts'), sources({ 'a.json': '{ "lastname" : "x" }\n' }));
    expect(json.spec.raw).toEqual({ text: '{ "lastname" : "x" }\n', type: 'application/json' });
    const form = toApiRequest(options(['auth/login'], { input: '-', header: ['Content-Type: application/x-www-form-urlencoded'] }), at('auth/login'), sources({}, 'name=demo&password=x'));
    expect(form.spec).toEqual({ method: 'POST', root: 'auth', path: '/login', raw: { text: 'name=demo&password=x', type: 'application/x-www-form-urlencoded' } });
    const text = toApiRequest(options(['accounts'], { input: 'q.txt' }), at('accounts'), sources({ 'q.txt': 'limit=1' }));
    expect(text.spec.raw).toEqual({ text: 'limit=1' });
    expect(text.query).toEqual({ family: text.query?.family });
    // Without a body, -H Content-Type is an ordinary header.
    expect(toApiRequest(options(['config'], { header: ['Content-Type: text/plain'] }), at('config'), sources()).spec.headers).toEqual({ 'content-type': 'text/plain' });
  });

  it('pages a query by ID: limit is the page size, the filter member is kept, and what paging sets is refused', () => {
    const plan = (flags: CommandInput['flags'], path = 'accounts', src = sources()) =>
      toPagePlan(toApiRequest(options([path], { paginate: true, ...flags }), at(path), src), options([path], { paginate: true, ...flags }), 'filters');
    expect(plan({ field: ['limit=2', 'filter[type]=1', 'fields[]=ID'] })).toMatchObject({ pageSize: 2, query: { filterMember: 'filter', filter: { type: 1 }, body: { fields: ['ID'] } } });
    expect(plan({})).toMatchObject({ pageSize: 1000, query: { filterMember: 'filters', body: {} } });
    expect(plan({ rawField: ['limit=10'] }).pageSize).toBe(10);
    expect(plan({ input: 'q.json' }, 'accounts', sources({ 'q.json': '{"filters":{"ID":{"<":9}},"limit":3}' }))).toMatchObject({ pageSize: 3, query: { filterMember: 'filters', filter: { ID: { '<': 9 } } } });
    for (const m of ['sort[]=-ID', 'offset=1', 'count=true', 'export=true']) {
      expect(refusal(() => plan({ field: [m] }))).toMatch(/^--paginate pages by ID in ID order: drop '(sort|offset|count|export)' from the body/);
    }
    expect(refusal(() => plan({ field: ['limit=0'] }))).toBe("with --paginate, 'limit' is the page size: a whole number from 1 to 10000, not 0");
    expect(refusal(() => plan({ field: ['limit[]=1'] }))).toMatch(/^with --paginate, 'limit' is the page size/);
    expect(refusal(() => plan({ field: ['filter[a]=1', 'filters[b]=1'] }))).toBe("the body has both 'filter' and 'filters'; give the filter under one of them");
    expect(refusal(() => plan({ header: ['X-A: 1'] }))).toMatch(/^--paginate sends each page as svc <family> query --all does/);
    expect(refusal(() => plan({}, 'accounts/42'))).toBe("--paginate works on a query, a POST on a family's collection (e.g. 'svc api accounts -F limit=500 --paginate'), not POST /accounts/42");
    expect(refusal(() => plan({}, 'auth/login'))).toMatch(/not POST auth\/login$/);
    expect(refusal(() => plan({ input: 'q' }, 'accounts', sources({ q: 'limit=1' })))).toBe('--paginate needs a JSON object as the query body (fields, or --input with a JSON object)');
  });
});

describe('svc api: against a sandbox', () => {
  const { sandbox, run } = sandboxCli({ record: true });
  const MARK = 'ApiCmd';
  const dir = mkdtempSync(join(tmpdir(), 'svc-api-test-'));

  /** Five accounts of this file's own, created over HTTP; their IDs. */
  async function seed(): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await sandbox.call('PUT', 'api/v1/accounts', { json: { lastname: `${MARK} ${i}`, currency: 'EUR', type: 1 } });
      ids.push(r.json<{ ID: number }>().ID);
    }
    sandbox.sandbox.hooks.requests.length = 0;
    return ids;
  }

  it('GETs a record and writes its body byte for byte', async () => {
    const expected = (await sandbox.call('GET', 'api/v1/accounts/1')).text;
    const r = await run(['api', 'accounts/1']);
    expect(r).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(r.stdout).toContain('García');
    const [get] = sandbox.sandbox.hooks.requests.slice(-1);
    expect(get).toMatchObject({ method: 'GET', url: '/demo/api/v1/accounts/1' });
  });

  it('filters the body with --jq, and the whole array of --paginate (or each record with -o ndjson)', async () => {
    const r = await run(['api', 'accounts/1', '--jq', '.lastname']);
    expect(r).toEqual({ code: 0, stdout: 'García\n', stderr: '' });
    // The tenant's first five accounts, two a page (this file's own records are left to the other tests).
    const ids = [1, 2, 3, 4, 5];
    const args = ['api', 'accounts', '--paginate', '-F', 'filters[ID][<=]=5', '-F', 'limit=2'];
    const all = await run([...args, '--jq', 'map(.ID)']);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual(ids);
    const each = await run([...args, '-o', 'ndjson', '--jq', '.ID']);
    expect(each.stdout).toBe(ids.map((id) => `${id}\n`).join(''));
    const bad = await run(['api', 'accounts/1', '--jq', '.a |||']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^svc: invalid --jq expression: /);
  });

  it('POSTs a query made of fields, and sends GET fields as the query string', async () => {
    const r = await run(['api', 'accounts', '-f', 'fields[]=ID', '-f', 'fields[]=lastname', '-F', 'filters[ID][<=]=2', '-F', 'limit=5']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { ID: 1, lastname: 'García' },
      { ID: 2, lastname: 'Grüne Wiese AG' },
    ]);
    expect(sandbox.sandbox.hooks.requests[0]).toMatchObject({ method: 'POST', url: '/demo/api/v1/accounts', body: { fields: ['ID', 'lastname'], filters: { ID: { '<=': 2 } }, limit: 5 } });
    const g = await run(['api', '-X', 'GET', 'accounts/1?tags=1', '-F', 'extdata=1']);
    expect(g.code, g.stderr).toBe(0);
    expect(JSON.parse(g.stdout)).toHaveProperty('extdata');
    expect(sandbox.sandbox.hooks.requests[1]).toMatchObject({ method: 'GET', url: '/demo/api/v1/accounts/1?tags=1&extdata=1' });
  });

  it('pages a query with --paginate as one JSON array, and as NDJSON, asking page after page by ID', async () => {
    const ids = await seed();
    const args = ['api', 'accounts', '--paginate', '-f', `filters[lastname][~~]=${MARK} %`, '-F', 'limit=2', '-f', 'fields[name]=lastname'];
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
    const expected = ids.map((_, i) => ({ name: `${MARK} ${i}` }));
    expect(JSON.parse(r.stdout)).toEqual(expected);
    expect(r.stdout.match(/^\[/gm)).toHaveLength(1);
    const pages = sandbox.sandbox.hooks.requests;
    expect(pages.map((p) => (p.body as { filters: unknown }).filters)).toEqual([0, ids[1], ids[3]].map((after) => ({ lastname: { '~~': `${MARK} %` }, ID: { '>': after } })));
    expect(pages.every((p) => JSON.stringify((p.body as { sort: unknown }).sort) === '["+ID"]')).toBe(true);
    const nd = await run([...args, '-o', 'ndjson']);
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout).toBe(expected.map((x) => `${JSON.stringify(x)}\n`).join(''));
    // On a terminal too: data, never a table.
    const tty = await run(args, { tty: true });
    expect(JSON.parse(tty.stdout)).toEqual(expected);
  });

  it('prints the status line and headers first with -i', async () => {
    const r = await run(['api', 'accounts/1', '-i']);
    expect(r.code, r.stderr).toBe(0);
    const [head, rest] = r.stdout.split('\r\n\r\n', 2) as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8(\r\n|$)/);
    expect(head).toMatch(/\r\nEtag: "[0-9a-f]+"/);
    expect(JSON.parse(rest)).toMatchObject({ ID: 1 });
    const headOnly = await run(['api', 'HEAD', 'accounts/1', '-i']);
    expect(headOnly.code, headOnly.stderr).toBe(0);
    expect(headOnly.stdout).toMatch(/^HTTP\/1\.1 204 No Content\r\n(.+\r\n)*Etag: "[0-9a-f]+"\r\n(.+\r\n)*\r\n$/);
  });

  it('exits 3 on a 404 with the service message on stderr, and the body on stdout when it is JSON', async () => {
    const text = await run(['api', 'accounts/999999']);
    expect(text).toEqual({ code: 3, stdout: '', stderr: `svc: GET ${sandbox.instanceUrl}/api/v1/accounts/999999 failed with 404: Not Found: accounts 999999 does not exist\n` });
    sandbox.sandbox.hooks.failNext({ path: '/accounts/7', fault: { status: 404, body: '{"error":"no such account","ID":7}' } });
    const json = await run(['api', 'accounts/7']);
    expect(json).toEqual({ code: 3, stdout: '{"error":"no such account","ID":7}', stderr: `svc: GET ${sandbox.instanceUrl}/api/v1/accounts/7 failed with 404: {"error":"no such account","ID":7}\n` });
    const head = await run(['api', 'accounts/999999', '-i']);
    expect(head.code).toBe(3);
    expect(head.stdout).toMatch(/^HTTP\/1\.1 404 Not Found\r\n[\s\S]*\r\n\r\n$/);
  });

  it('maps other statuses onto the exit codes: 401 → 4, 409 → 5, 500 → 1', async () => {
    const bad = await run(['api', 'config'], { env: { SVC_TOKEN: 'not-a-token' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/^svc: GET \S+\/api\/v1\/config failed with 401: .* \(run svc login\)\n$/);
    const clash = await run(['api', 'PUT', 'accounts', '-F', 'ID=1', '-f', 'lastname=x', '-f', 'currency=EUR']);
    expect(clash.code).toBe(5);
    sandbox.sandbox.hooks.failNext({ path: '/config', fault: { status: 500, body: 'boom' } });
    expect(await run(['api', 'config'])).toMatchObject({ code: 1, stdout: '', stderr: `svc: GET ${sandbox.instanceUrl}/api/v1/config failed with 500: boom\n` });
  });

  it('sends a write once, but asks a query again after a 503', async () => {
    const arrived: string[] = [];
    sandbox.sandbox.hooks.onArrival = (method) => void arrived.push(method);
    sandbox.sandbox.hooks.failNext({ method: 'PUT', path: '/accounts', fault: { status: 503, body: 'busy', headers: { 'Retry-After': '0' } } });
    const put = await run(['api', 'PUT', 'accounts', '-f', `lastname=${MARK} once`, '-f', 'currency=EUR']);
    expect(put.code).toBe(1);
    expect(arrived).toEqual(['PUT']);
    sandbox.sandbox.hooks.failNext({ method: 'POST', path: '/accounts', fault: { status: 503, body: 'busy', headers: { 'Retry-After': '0' } } });
    const query = await run(['api', 'accounts', '-F', 'count=true']);
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.parse(query.stdout)).toHaveProperty('count');
    expect(arrived).toEqual(['PUT', 'POST', 'POST']);
  });

  it('sends --input as the body, from a file or standard input, and -F @FILE / @- as text', async () => {
    const file = join(dir, 'account.json');
    writeFileSync(file, JSON.stringify({ lastname: `${MARK} input`, currency: 'EUR' }));
    const made = await run(['api', 'PUT', 'accounts', '--input', file]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ lastname: `${MARK} input` });
    const q = await run(['api', 'accounts', '--input', '-'], { stdin: ['{"filters":{"lastname":"', `${MARK} input"},"fields":["lastname"]}`] });
    expect(JSON.parse(q.stdout)).toEqual([{ lastname: `${MARK} input` }]);
    const note = join(dir, 'note.txt');
    writeFileSync(note, 'two\nlines');
    const upd = await run(['api', 'PUT', 'accounts', '-F', `description=@${note}`, '-F', 'firstname=@-', '-f', `lastname=${MARK} files`, '-f', 'currency=EUR'], { stdin: ['Ada'] });
    expect(upd.code, upd.stderr).toBe(0);
    expect(JSON.parse(upd.stdout)).toMatchObject({ description: 'two\nlines', firstname: 'Ada' });
    const missing = await run(['api', 'accounts', '-F', `x=@${join(dir, 'nope')}`]);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/^svc: cannot read '.*nope' \(ENOENT\); check the file named by --input or -F key=@FILE\n$/);
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(await run(['api', 'accounts', '--input', join(dir, 'latin1.txt')])).toMatchObject({ code: 2, stderr: expect.stringMatching(/is not UTF-8 text/) });
  });

  it('reaches the auth and oauth2 interfaces, and a full URL under the instance', async () => {
    const auth = await run(['api', 'auth']);
    expect(auth.code, auth.stderr).toBe(0);
    expect(JSON.parse(auth.stdout)).toMatchObject({ name: 'demo' });
    const info = await run(['api', 'oauth2/userinfo']);
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toHaveProperty('sub');
    const full = await run(['api', `${sandbox.instanceUrl}/api/v1/config`]);
    expect(full.code, full.stderr).toBe(0);
    expect(sandbox.sandbox.hooks.requests.map((q) => q.url)).toEqual(['/demo/auth/v1/', '/demo/oauth2/v1/userinfo', '/demo/api/v1/config']);
  });

  it('refuses a full URL outside the instance and sends nothing', async () => {
    const origin = new URL(sandbox.instanceUrl).origin;
    for (const url of ['https://example.com/demo/api/v1/config', `${origin}/other/api/v1/config`, `${origin}/demo/api/v1/../../other`]) {
      const r = await run(['api', url]);
      expect(r.code, url).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^svc: refusing .* only; give a path such as accounts\/42, or a URL under the instance\n$/);
    }
    expect(sandbox.sandbox.hooks.requests).toEqual([]);
  });

  it('prints the request with --dry-run, secrets redacted, and sends nothing, not even a token lookup', async () => {
    const noKeychain = () => {
      throw new Error('--dry-run must not look up a token');
    };
    const r = await run(['api', 'accounts?password=hunter2', '-F', 'limit=1', '-H', 'Cookie: SERVICEID=abc', '--dry-run'], { env: { SVC_TOKEN: undefined }, keychain: noKeychain });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        `POST ${sandbox.instanceUrl}/api/v1/accounts?password=%5Bredacted%5D`,
        `user-agent: svc/${version}`,
        'accept: application/json, text/csv;q=0.9, */*;q=0.1',
        'cookie: [redacted]',
        'content-type: application/json',
        'authorization: Bearer [redacted]',
        '',
        '{"limit":1}',
        '',
      ].join('\n'),
    );
    const paged = await run(['api', 'accounts', '--paginate', '-F', 'limit=3', '-f', 'fields[]=lastname', '--dry-run']);
    expect(paged.code, paged.stderr).toBe(0);
    expect(paged.stdout.split('\n\n')[1]).toBe('{"fields":{"lastname":"lastname","ID":"ID"},"filters":{"ID":{">":0}},"sort":["+ID"],"limit":3}\n');
    expect(sandbox.sandbox.hooks.requests).toEqual([]);
  });

  it('refuses output formats other than the body (and NDJSON with --paginate)', async () => {
    expect(await run(['api', 'config', '-o', 'ndjson'])).toMatchObject({ code: 2, stderr: 'svc: -o ndjson goes with --paginate (a record a line); without it svc api prints the body as the service sent it\n' });
    expect(await run(['api', 'config', '-o', 'csv'])).toMatchObject({ code: 2, stderr: "svc: svc api prints the service's answer as it is: -o csv does not apply (with --paginate: -o json or -o ndjson)\n" });
    expect(sandbox.sandbox.hooks.requests).toEqual([]);
  });
});

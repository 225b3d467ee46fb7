/**
 * Hostile input the sandbox must answer with a prompt 4xx naming the problem:
 * prototype keys in bodies, patterns that make a backtracking engine run for
 * ever, requests over the limits (src/sandbox/limits.ts), IDs beyond 2^53 and
 * malformed paths and encodings. Each reproduction of issue 12 is here.
 */
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/sandbox/limits.js';
import { useTestSandbox } from '../helpers/sandbox.js';
import { createPermissionProbe, type PermissionProbe } from './permission-probe.js';
let probe: PermissionProbe;

const s = useTestSandbox();

beforeAll(async () => {
  probe = await createPermissionProbe(s);
});

/** A request with a body sent exactly as given (big integers, bad bytes), as demo unless told. */
async function raw(method: string, path: string, body: string | Buffer, type = 'application/json', token = s.token('demo')) {
  const res = await request(`${s.instanceUrl}/${path}`, { method: method as 'POST', headers: { 'content-type': type, authorization: `Bearer ${token}` }, body });
  return { status: res.statusCode, text: await res.body.text() };
}

const query = (body: unknown, family = 'accounts') => s.call('POST', `api/v1/${family}`, { json: body });

async function expect400(body: unknown, message: RegExp, family = 'accounts'): Promise<void> {
  const r = await query(body, family);
  expect(r.status, r.text).toBe(400);
  expect(r.text).toMatch(message);
}

describe('prototype keys in bodies are ordinary keys', () => {
  it('a form login with __proto__[admin]=1 makes nobody an admin', async () => {
    try {
      const r = await s.call('POST', 'auth/v1/login', { token: null, form: '__proto__[admin]=1' });
      expect(r.status).toBe(400);
      expect(await probe.run()).toEqual([]);
    } finally {
      delete (Object.prototype as Record<string, unknown>).admin; // Keeps a regression from poisoning the other tests.
    }
  });

  it('prototype keys anywhere in form and JSON bodies reach no prototype', async () => {
    try {
      const forms = ['constructor[prototype][admin]=1', '__proto__[__proto__][admin]=1', 'a[__proto__][admin]=1&prototype[admin]=1'];
      for (const form of forms) expect((await s.call('POST', 'auth/v1/login', { token: null, form })).status).toBe(400);
      expect((await s.call('POST', 'api/v1/accounts', { form: 'filter[__proto__][admin]=1' })).status).toBe(400);
      const aliased = await s.call('POST', 'api/v1/accounts', { form: 'fields[__proto__]=lastname&limit=1' });
      expect(aliased.status).toBe(200);
      expect(Object.keys(aliased.json<Record<string, unknown>[]>()[0] ?? {})).toEqual(['__proto__']);
      expect((await raw('POST', 'auth/v1/login', '{"__proto__": {"admin": 1}, "constructor": {"prototype": {"admin": 1}}}')).status).toBe(400);
      const put = await raw('PUT', 'api/v1/accounts', '{"__proto__": {"admin": true}, "lastname": "X", "currency": "EUR"}', 'application/json', s.token('staff'));
      expect(put).toMatchObject({ status: 400, text: expect.stringContaining("unknown field '__proto__'") });
      expect(await probe.run()).toEqual([]);
    } finally {
      delete (Object.prototype as Record<string, unknown>).admin;
    }
  });
});

describe('regular expressions and LIKE patterns cannot stall the server', () => {
  let shortRun: number;
  let longRun: number;
  beforeAll(async () => {
    const put = async (lastname: string) => (await s.call('PUT', 'api/v1/accounts', { json: { lastname, currency: 'EUR' } })).json<{ ID: number }>().ID;
    shortRun = await put('a'.repeat(32));
    longRun = await put('a'.repeat(200));
  });

  /** Sends a query and a health check together: both must answer within a few seconds (liveness, not speed). */
  async function answersPromptly(body: unknown): Promise<unknown> {
    const started = Date.now();
    const [r, health] = await Promise.all([query(body), s.call('GET', '/_sandbox/health', { token: null })]);
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.status, r.text).toBe(200);
    return r.json();
  }

  it('the nested-quantifier pattern of the issue answers at once', async () => {
    const pattern = '^([\\s\\S]{1,18}?)+$X';
    expect(await answersPromptly({ filter: { ID: shortRun, lastname: { '~': pattern } } })).toEqual([]);
    expect(await answersPromptly({ filter: { ID: shortRun, lastname: { '~*': pattern } } })).toEqual([]);
    expect(await answersPromptly({ filter: { ID: shortRun, lastname: { '~': '^(a+)+$' } }, fields: ['ID'] })).toEqual([{ ID: shortRun }]);
  });

  it('a LIKE pattern of many % runs answers at once, and still matches as LIKE does', async () => {
    expect(await answersPromptly({ filter: { ID: longRun, lastname: { '~~': '%a%a%a%a%b' } } })).toEqual([]);
    expect(await answersPromptly({ filter: { ID: longRun, lastname: { '~~': '%a%a%a%a%' } }, fields: ['ID'] })).toEqual([{ ID: longRun }]);
    expect(await answersPromptly({ filter: { ID: longRun, lastname: { '!~~': '%a%a%a%a%b' } }, fields: ['ID'] })).toEqual([{ ID: longRun }]);
  });

  it('refuses what only a backtracking engine can do, saying why', async () => {
    for (const pattern of ['(a)\\1', '(?=a)a', '(?<!x)a']) {
      await expect400({ filter: { lastname: { '~': pattern } } }, /regular expression .* is not supported: the sandbox evaluates regular expressions in linear time and does not support that construct/);
    }
    // A named group is no PostgreSQL syntax at all: invalid, as the service says, not unsupported.
    await expect400({ filter: { lastname: { '~': '(?<n>a)\\k<n>' } } }, /invalid regular expression/);
    await expect400({ filter: { lastname: { '~': 'a'.repeat(1001) } } }, /pattern is 1,001 characters long; the sandbox allows at most 1,000/);
    await expect400({ filter: { lastname: { '~~*': '%'.repeat(1001) } } }, /the sandbox allows at most 1,000/);
  });
});

describe('requests over the limits get a 400 naming the limit', () => {
  const nested = (depth: number): unknown => {
    let f: unknown = { type: 1 };
    for (let i = 0; i < depth; i++) f = ['AND', f];
    return f;
  };
  const ors = (n: number) => ['OR', ...Array.from({ length: n }, (_, i) => ({ ID: i + 1 }))];

  it('filter depth and size', async () => {
    expect((await query({ filter: nested(32), count: true })).status).toBe(200);
    await expect400({ filter: nested(33) }, /^filter nests deeper than 32 levels; the sandbox allows at most 32$/);
    const all = await query({ filter: ors(1000), count: true });
    expect(all.json()).toEqual({ count: expect.any(Number) });
    await expect400({ filter: ors(1001) }, /filter has more than 1,000 conditions; the sandbox allows at most 1,000/);
    await expect400({ filter: ors(100_000) }, /more than 1,000 conditions/);
    expect((await query({ filter: { ID: { IN: Array.from({ length: 10_000 }, (_, i) => i) } }, count: true })).status).toBe(200);
    await expect400({ filter: { ID: { IN: Array.from({ length: 10_001 }, (_, i) => i) } } }, /the IN list has 10,001 values; the sandbox allows at most 10,000/);
  });

  it('body nesting, JSON and form', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect(await raw('POST', 'api/v1/accounts', `{"filter": ${deep}}`)).toMatchObject({ status: 400, text: expect.stringMatching(/nests arrays or objects deeper than 128 levels/) });
    const key = `filter${'[a]'.repeat(10_000)}`;
    const form = await raw('POST', 'api/v1/accounts', `${key}=1`, 'application/x-www-form-urlencoded');
    expect(form).toMatchObject({ status: 400, text: expect.stringMatching(/nests deeper than 128 levels; the sandbox allows at most 128/) });
  });

  it('search terms, sort keys, fields, joins and path lengths', async () => {
    await expect400({ query: 'ab '.repeat(700_000) }, /parameter 'query' is 2,100,000 characters long; the sandbox allows at most 1,000/);
    await expect400({ query: 'a '.repeat(33) }, /parameter 'query' has 33 search terms; the sandbox allows at most 32/);
    expect((await query({ query: 'a '.repeat(32), count: true })).status).toBe(200);
    await expect400({ sort: Array.from({ length: 5000 }, () => 'ID') }, /parameter 'sort' has 5,000 keys; the sandbox allows at most 64/);
    expect((await query({ sort: Array.from({ length: 64 }, () => '-ID'), limit: 1 })).status).toBe(200);
    await expect400({ fields: Array.from({ length: 501 }, () => 'ID') }, /parameter 'fields' has 501 paths; the sandbox allows at most 500/);
    await expect400({ fields: Array.from({ length: 70 }, (_, i) => `extdata.x${i}`) }, /the query joins more than 48 related records and extension fields; the sandbox allows at most 48/);
    expect((await query({ fields: Array.from({ length: 48 }, (_, i) => `extdata.x${i}`), limit: 1 })).status).toBe(200);
    await expect400({ filter: { ['x'.repeat(2_000_000)]: 1 } }, /filter path 'x{60}…' is longer than 1000 characters/);
    await expect400({ fields: ['y'.repeat(2_000_000)] }, /is longer than 1000 characters/);
  });

  it('a malformed path or body encoding', async () => {
    const r = await s.call('GET', '/demo/api/v1/accounts/%E0%A4%A');
    expect(r).toMatchObject({ status: 400, text: expect.stringMatching(/^malformed percent-escape in the path segment '%E0%A4%A'/) });
    expect((await s.call('GET', '/demo/api/v1/%ZZ')).status).toBe(400);
    const bad = await raw('POST', 'api/v1/accounts', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]));
    expect(bad).toMatchObject({ status: 400, text: expect.stringMatching(/not valid UTF-8/) });
  });
});

describe('form bodies are decoded strictly', () => {
  const form = (body: string, path = 'api/v1/accounts') => raw('POST', path, body, 'application/x-www-form-urlencoded');
  const FIX = "; escape '%' as %25 and percent-encode UTF-8 bytes only";

  it('a malformed %-escape in a key or value is a 400 naming it, not U+FFFD', async () => {
    expect(await form('fields[%ff]=ID')).toEqual({ status: 400, text: `malformed percent-escape in the form key 'fields[%ff]'${FIX}` });
    expect(await form('limit=%')).toEqual({ status: 400, text: `malformed percent-escape in the value of the form key 'limit' ('%')${FIX}` });
    expect(await form('%zz=1')).toEqual({ status: 400, text: `malformed percent-escape in the form key '%zz'${FIX}` });
    expect((await form('query=%c3%28')).text).toBe(`malformed percent-escape in the value of the form key 'query' ('%c3%28')${FIX}`); // not UTF-8
    expect((await form('query=%ED%A0%80')).status).toBe(400); // an encoded lone surrogate
    expect((await form(`name=${'%ff'.repeat(1000)}`, 'auth/v1/login')).text).toMatch(/^malformed percent-escape in the value of the form key 'name' \('(%ff){20}…'\)/);
  });

  it('well-formed escapes and + still decode as before', async () => {
    const r = await form('fields[last+name]=lastname&fields[pct%25%20%C3%BC]=ID&limit=1&&');
    expect(r.status, r.text).toBe(200);
    expect(Object.keys((JSON.parse(r.text) as Record<string, unknown>[])[0] ?? {})).toEqual(['last name', 'pct% ü']);
  });
});

describe('integers beyond 2^53 − 1 are refused, not rounded', () => {
  it('in the path', async () => {
    const r = await s.call('GET', 'api/v1/accounts/9007199254740993');
    expect(r).toMatchObject({ status: 400, text: expect.stringMatching(/record ID 9007199254740993 is beyond 2\^53 − 1/) });
    expect((await s.call('GET', 'api/v1/accounts/123456789012345678901234')).status).toBe(400);
    expect((await s.call('GET', 'api/v1/accounts/9007199254740991')).status).toBe(404);
    expect((await s.call('GET', 'api/v1/accounts/0001')).status).toBe(200);
  });

  it('in filter values and written fields', async () => {
    expect(await raw('POST', 'api/v1/accounts', '{"filter": {"ID": 9007199254740993}}')).toMatchObject({ status: 400, text: expect.stringMatching(/beyond ±\(2\^53 − 1\)/) });
    await expect400({ filter: { contact: { IN: ['1', '9007199254740993'] } } }, /filter on 'contact' of accounts: "9007199254740993" is beyond/);
    const put = await raw('PUT', 'api/v1/accounts', '{"lastname": "Big", "currency": "EUR", "contact": 9007199254740993}');
    expect(put).toMatchObject({ status: 400, text: expect.stringMatching(/field 'contact': 9007199254740992 is beyond/) });
  });
});

describe('stored texts', () => {
  it('refuses a text value over LIMITS.textLength (one pattern call over it could not be interrupted), in a field and in extdata', async () => {
    const big = 'x'.repeat(LIMITS.textLength + 1);
    const field = await s.call('PUT', 'api/v1/accounts', { json: { lastname: 'Big', currency: 'EUR', description: big } });
    expect(field.status).toBe(400);
    expect(field.text).toBe(`field 'description' holds 1,048,577 characters; the sandbox allows at most 1,048,576 (characters per stored text)`);
    const ext = await s.call('PUT', 'api/v1/accounts', { json: { lastname: 'Big', currency: 'EUR', extdata: { note: big } } });
    expect(ext.status).toBe(400);
    expect(ext.text).toContain("extdata 'note' holds 1,048,579 characters; the sandbox allows at most 1,048,576");
    const fits = await s.call('PUT', 'api/v1/accounts', { json: { lastname: 'Fits', currency: 'EUR', description: 'x'.repeat(LIMITS.textLength) } });
    expect(fits.status, fits.text).toBe(201);
  });
});

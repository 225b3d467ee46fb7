/**
 * Hostile input to the OAuth 2.0 interface: every answer is a prompt 4xx
 * (never a 5xx, never a redirect to an unchecked URI), whatever the body
 * holds: prototype keys, values that are not strings, huge fields, bad
 * percent-escapes, deep nesting; and unknown paths and methods are 404 and 405.
 */
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { authorizePath, basic, createBrowser, formOf, oauthHelpers } from './oauth-support.js';

const t = useTestSandbox();
const { secretOf, post } = oauthHelpers(() => t, () => Math.floor(Date.now() / 1000));

/** A raw request to the OAuth interface; resolves to status, headers and text. */
async function raw(method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.sandbox.origin}/demo/oauth2/v1/${path}`, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(5000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const client = (): Record<string, string> => ({ authorization: basic('svc-cli', secretOf()) });
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

describe('paths and methods', () => {
  it('answers unknown paths with 404 and other methods with 405 and Allow', async () => {
    for (const path of ['', 'nope', 'token/x', '__proto__', 'constructor']) expect((await raw('GET', path)).status, path).toBe(404);
    const cases: [string, string, string][] = [
      ['GET', 'token', 'POST'],
      ['PUT', 'authorize', 'GET, POST'],
      ['DELETE', 'revoke', 'POST'],
      ['GET', 'introspect', 'POST'],
      ['POST', 'userinfo', 'GET'],
      ['OPTIONS', 'token', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await raw(method, path);
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(answer.headers.get('allow')).toBe(allow);
    }
  });
});

describe('token, revoke and introspect bodies', () => {
  const endpoints = ['token', 'revoke', 'introspect'];

  it('answer values that are not strings with 400 invalid_request', async () => {
    for (const endpoint of endpoints) {
      for (const value of [1, true, null, ['a'], { a: 1 }]) {
        const answer = await raw('POST', endpoint, JSON.stringify({ grant_type: 'password', token: value, username: value }), { ...client(), ...JSON_TYPE });
        expect(answer.status, `${endpoint} ${JSON.stringify(value)}`).toBe(400);
        expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/must be a string/) });
      }
      for (const body of ['[]', '"text"', '42', 'null']) {
        const answer = await raw('POST', endpoint, body, { ...client(), ...JSON_TYPE });
        expect(answer.status, `${endpoint} ${body}`).toBe(400);
      }
      const bracketed = await raw('POST', endpoint, 'token[]=a&grant_type[x]=y', { ...client(), ...FORM });
      expect(bracketed.status).toBe(400);
    }
  });

  it('treat prototype keys as plain unknown names', async () => {
    const proto = '{"__proto__":{"grant_type":"password","token":"x","admin":true},"constructor":{"prototype":{"token":"y"}}}';
    for (const endpoint of endpoints) {
      const answer = await raw('POST', endpoint, proto, { ...client(), ...JSON_TYPE });
      expect(answer.status, endpoint).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_request' });
    }
    const form = await raw('POST', 'token', '__proto__[grant_type]=password&constructor[prototype][grant_type]=password', { ...client(), ...FORM });
    expect(form.status).toBe(400);
    expect(({} as Record<string, unknown>).grant_type).toBeUndefined();
    // As values, the names are just wrong.
    expect((await post('token', { grant_type: '__proto__' })).json()).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: 'constructor' })).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await post('token', {}, { auth: basic('__proto__', 'x') })).status).toBe(401);
  });

  it('answer huge fields with 400, and a body over the size limit with 413', async () => {
    const huge = 'a'.repeat(100_000);
    const cases: Record<string, string>[] = [{ grant_type: huge }, { grant_type: 'password', username: huge, password: 'x' }, { grant_type: 'refresh_token', refresh_token: huge }, { client_id: huge, client_secret: 'x' }];
    for (const fields of cases) {
      const answer = await raw('POST', 'token', new URLSearchParams(fields).toString(), FORM);
      expect(answer.status, Object.keys(fields).join()).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/longer than/) });
    }
    for (const endpoint of ['revoke', 'introspect']) {
      const answer = await raw('POST', endpoint, new URLSearchParams({ token: huge }).toString(), { ...client(), ...FORM });
      expect(answer.status, endpoint).toBe(400);
    }
    const longSecret = await raw('POST', 'token', 'grant_type=password', { authorization: basic('svc-cli', 'x'.repeat(5000)), ...FORM });
    expect(longSecret.status).toBe(401);
    const over = await raw('POST', 'token', 'a'.repeat(33 * 1024 * 1024), FORM);
    expect(over.status).toBe(413);
  });

  it('answer bad percent-escapes, bad UTF-8, deep nesting and other content types with 4xx', async () => {
    const cases: [string, string | Uint8Array, Record<string, string>][] = [
      ['bad escapes', 'grant_type=%zz&token=%E0%A4%A', FORM],
      ['lone percent', 'token=%', FORM],
      ['bad UTF-8', new Uint8Array([0x74, 0x3d, 0xff, 0xfe]), FORM],
      ['deep JSON', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, JSON_TYPE],
      ['deep form', `token${'[a]'.repeat(5_000)}=1`, FORM],
      ['malformed JSON', '{"token":', JSON_TYPE],
      ['multipart', '--x\r\n\r\n--x--', { 'content-type': 'multipart/form-data; boundary=x' }],
    ];
    for (const endpoint of endpoints) {
      for (const [what, body, type] of cases) {
        const answer = await raw('POST', endpoint, body, { ...client(), ...type });
        expect(answer.status >= 400 && answer.status < 500, `${endpoint}, ${what}: ${answer.status} ${answer.text}`).toBe(true);
      }
    }
  });
});

describe('the authorize pages', () => {
  it('answer a malformed query with an error page, never a redirect', async () => {
    for (const query of ['client_id=svc-cli&redirect_uri=%zz', 'client_id=%E0%A4%A', 'client_id=svc-cli&client_id=reporting&redirect_uri=x', `client_id=${'a'.repeat(5000)}`]) {
      const answer = await raw('GET', `authorize?${query}&response_type=code`);
      expect(answer.status, query).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });

  it('answer hostile form posts with 4xx pages', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath({ state: 's' }));
    const form = formOf(start);
    const cases: [string, string][] = [
      ['prototype keys', `__proto__[client_id]=svc-cli&constructor[prototype][step]=signin`],
      ['arrays', `client_id[]=svc-cli&redirect_uri[]=x`],
      ['bad escape', `client_id=%zz`],
      ['nothing', ``],
    ];
    for (const [what, body] of cases) {
      const answer = await browser.post(form.action, body);
      expect(answer.status, what).toBe(400);
      expect(answer.location, what).toBeUndefined();
    }
    const hugeName = await browser.submit(form, { username: 'u'.repeat(10_000), password: 'x' });
    expect(hugeName.status).toBe(400);
    expect(hugeName.text).toContain('id="signin-form"');
    const arrayPassword = await browser.post(form.action, `${new URLSearchParams(form.fields).toString()}&username=demo&password[]=x`);
    expect(arrayPassword.status).toBe(400);
    const json = await browser.post(form.action, JSON.stringify({ ...form.fields, username: 'demo', password: 1 }), 'application/json');
    expect(json.status).toBe(400);
    const notObject = await browser.post(form.action, '[1,2]', 'application/json');
    expect(notObject.status).toBe(400);
    // After all that, the form still works.
    expect((await browser.submit(form, { username: 'demo', password: t.user('demo').password })).text).toContain('id="consent-form"');
  });

  it('answer a decision that is neither approve nor deny with the consent page again (400)', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath());
    const consent = await browser.submit(formOf(start), { username: 'demo', password: t.user('demo').password });
    for (const decision of ['maybe', '', '__proto__']) {
      const answer = await browser.submit(formOf(consent), { decision });
      expect(answer.status, decision).toBe(400);
      expect(answer.text).toContain('id="consent-form"');
    }
  });
});

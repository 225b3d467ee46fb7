/**
 * The Authorization Code flow of the sandbox's OAuth 2.0 interface in a
 * (scripted) browser: sign-in, one-time code, consent, the code and its
 * exchange; denial, wrong passwords, CSRF, the session cookie, escaping; and
 * what the tokens open: the data and authentication interfaces, /userinfo.
 */
import { get as httpsGet } from 'node:https';
import { beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, useTestSandbox } from '../helpers/sandbox.js';
import { testCertificate } from '../helpers/tls.js';
import { authorizePath, createBrowser, formOf, oauthHelpers, REDIRECT, type Tokens } from './oauth-support.js';

let clock: number;
const nowSec = (): number => Math.floor(clock / 1000);

beforeEach(() => {
  // 10 s into a TOTP step, so a code computed now stays valid while the test runs.
  clock = Date.UTC(2030, 0, 15, 12, 0, 10);
});
// A fresh sandbox for each test: tests here sign in, use codes and change users.
const t = useTestSandbox({ per: 'test', now: () => clock });
const { secretOf, appId, post, otpOf, signIn, exchange, tokensFor } = oauthHelpers(() => t, nowSec);

describe('sign-in, consent and code', () => {
  it('signs in, names the application and user on the consent page, and redirects with a code and the state', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath({ state: 'xyz' }));
    expect(start.status).toBe(200);
    expect(start.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(start.text).toMatch(/<input type="text" id="username" name="username"/);
    expect(start.text).toMatch(/<input type="password" id="password" name="password"/);
    expect(start.text).toMatch(/<button type="submit"[^>]*>Sign in<\/button>/);
    const consent = await browser.submit(formOf(start, 'signin-form'), { username: 'demo', password: t.user('demo').password });
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('<strong id="application">svc command line</strong>');
    expect(consent.text).toContain('<strong id="user">demo</strong>');
    expect(consent.text).toMatch(/<button type="submit" id="approve" name="decision" value="approve">/);
    expect(consent.text).toMatch(/<button type="submit" id="deny" name="decision" value="deny">/);
    const done = await browser.submit(formOf(consent, 'consent-form'), { decision: 'approve' });
    expect(done.status).toBe(303);
    expect(`${done.location?.origin}${done.location?.pathname}`).toBe(REDIRECT);
    expect(done.location?.searchParams.get('state')).toBe('xyz');
    const code = done.location?.searchParams.get('code') ?? '';
    expect(code).toMatch(/^[0-9a-f]{40}$/);

    const answer = await exchange(code);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.json()).toEqual({
      access_token: expect.stringMatching(/^[0-9a-f]{40}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^[0-9a-f]{40}$/),
      refresh_token_expires_in: 8_640_000,
    });
  });

  it('signs in by e-mail address too', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath());
    const consent = await browser.submit(formOf(start), { username: t.user('staff').email.toUpperCase(), password: t.user('staff').password });
    expect(consent.text).toContain('<strong id="user">staff</strong>');
  });

  it('redirects a denial with error=access_denied and the state', async () => {
    const browser = createBrowser(t);
    const consent = await signIn(browser, 'demo', { state: 's-1' });
    const done = await browser.submit(formOf(consent, 'consent-form'), { decision: 'deny' });
    expect(done.status).toBe(303);
    expect(done.location?.searchParams.get('error')).toBe('access_denied');
    expect(done.location?.searchParams.get('state')).toBe('s-1');
    expect(done.location?.searchParams.has('code')).toBe(false);
  });

  it('shows the sign-in page again for a wrong password or an unknown user, with 401 and the same words', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath());
    const wrong = await browser.submit(formOf(start), { username: 'demo', password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('id="message"');
    expect(wrong.text).toContain('Wrong user name or password.');
    expect(wrong.text).not.toContain('not-the-password');
    const unknown = await browser.submit(formOf(wrong), { username: 'nobody', password: 'not-the-password' });
    expect(unknown.status).toBe(401);
    const message = (html: string): string | undefined => /id="message"[^>]*>([^<]*)</.exec(html)?.[1];
    expect(message(unknown.text)).toBe(message(wrong.text));
    // The page still works: the right password goes on to the consent page.
    const consent = await browser.submit(formOf(unknown), { username: 'demo', password: t.user('demo').password });
    expect(consent.text).toContain('id="consent-form"');
  });

  it('refuses an inactive user with 401 on the sign-in page', async () => {
    t.sandbox.db.prepare(`UPDATE "demo/users" SET activity = 1 WHERE name = 'staff'`).run();
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath());
    const page = await browser.submit(formOf(start), { username: 'staff', password: t.user('staff').password });
    expect(page.status).toBe(401);
    expect(page.text).toContain('id="signin-form"');
  });
});

describe('two-factor users', () => {
  it('asks for the one-time code after the password, refuses a wrong one and a used one', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath());
    const otp = await browser.submit(formOf(start), { username: 'secure', password: t.user('secure').password });
    expect(otp.status).toBe(200);
    expect(otp.text).toMatch(/<input type="text" id="otp" name="otp"/);
    expect(otp.text).not.toContain('id="consent-form"');
    const right = otpOf('secure');
    const wrongCode = right === '000000' ? '000001' : '000000';
    const wrong = await browser.submit(formOf(otp, 'otp-form'), { otp: wrongCode });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The code is wrong or has expired.');
    const consent = await browser.submit(formOf(wrong, 'otp-form'), { otp: right });
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('<strong id="user">secure</strong>');

    // The code worked once: a second sign-in with it is refused (RFC 6238 section 5.2).
    const other = createBrowser(t);
    const again = await other.submit(formOf(await other.get(authorizePath()), 'signin-form'), { username: 'secure', password: t.user('secure').password });
    const reused = await other.submit(formOf(again, 'otp-form'), { otp: right });
    expect(reused.status).toBe(401);
    expect(reused.text).toContain('That code was used already');
  });

  it('sends the user back to the password after five wrong codes', async () => {
    const browser = createBrowser(t);
    let page = await browser.submit(formOf(await browser.get(authorizePath())), { username: 'secure', password: t.user('secure').password });
    const wrongCode = otpOf('secure') === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) page = await browser.submit(formOf(page), { otp: wrongCode });
    expect(page.status).toBe(401);
    expect(page.text).toContain('id="signin-form"');
    expect(page.text).toContain('Too many wrong codes');
  });

  it('does not take the code page without the password first', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath());
    // A form of the otp step cannot be made without its CSRF token, so skipping the password is a 403.
    const skipped = await browser.submit(formOf(start), { step: 'otp', otp: otpOf('secure') });
    expect(skipped.status).toBe(403);
  });
});

describe('the session cookie and CSRF', () => {
  it('sets SERVICEID HttpOnly, SameSite=Lax, Path=/demo, not Secure over HTTP, and replaces it on sign-in', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath());
    const cookie = start.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^SERVICEID=[0-9a-f]{64}; /);
    expect(cookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=28800', 'Path=/demo', 'SameSite=Lax']);
    const before = browser.jar.get('SERVICEID');
    const consent = await browser.submit(formOf(start), { username: 'demo', password: t.user('demo').password });
    expect(consent.headers.get('set-cookie')).toMatch(/^SERVICEID=[0-9a-f]{64}; Path=\/demo;/);
    expect(browser.jar.get('SERVICEID')).not.toBe(before);
    // The session is kept server-side: a later authorization skips the sign-in page.
    const next = await browser.get(authorizePath());
    expect(next.text).toContain('id="consent-form"');
  });

  it('refuses a form without its CSRF token, with a wrong one, or without the session cookie: 403', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath({ state: 'keep' }));
    const form = formOf(start);
    const creds = { username: 'demo', password: t.user('demo').password };
    const missing = await browser.submit(form, { ...creds, csrf_token: undefined });
    expect(missing.status).toBe(403);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(missing.text).toContain('CSRF');
    expect(missing.headers.get('location')).toBeNull();
    expect((await browser.submit(form, { ...creds, csrf_token: 'a'.repeat(64) })).status).toBe(403);
    expect((await browser.submit(form, { ...creds, csrf_token: 'not hex' })).status).toBe(403);
    // A token of another session, and the right token without any cookie.
    const other = createBrowser(t);
    const otherForm = formOf(await other.get(authorizePath({ state: 'keep' })));
    expect((await browser.submit(form, { ...creds, csrf_token: otherForm.fields.csrf_token })).status).toBe(403);
    const cookieless = await fetch(`${t.sandbox.origin}${form.action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, ...creds }).toString(),
      redirect: 'manual',
    });
    expect(cookieless.status).toBe(403);
    // A token bound to another request: the same form with a changed state.
    expect((await browser.submit(form, { ...creds, state: 'changed' })).status).toBe(403);
    expect((await browser.submit(form, creds)).status).toBe(200);
  });

  it('marks the cookie Secure when the sandbox serves HTTPS', async () => {
    const tls = await testCertificate();
    const secure = await startTestSandbox({ tls });
    try {
      const url = `${secure.sandbox.origin}${authorizePath()}`;
      const cookie = await new Promise<string | undefined>((resolve, reject) => {
        httpsGet(url, { ca: tls.cert }, (res) => {
          res.resume();
          resolve(res.headers['set-cookie']?.[0]);
        }).on('error', reject);
      });
      expect(cookie).toMatch(/^SERVICEID=[0-9a-f]{64}; Path=\/demo; Max-Age=28800; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await secure.close();
    }
  });

  it('ends the session after its lifetime', async () => {
    const browser = createBrowser(t);
    await signIn(browser, 'demo');
    clock += 8 * 3600 * 1000 + 1000;
    const page = await browser.get(authorizePath());
    expect(page.text).toContain('id="signin-form"');
  });
});

describe('escaping', () => {
  it('escapes what a request reflects into a page', async () => {
    const browser = createBrowser(t);
    const state = '"><script>alert(1)</script>\'`';
    const start = await browser.get(authorizePath({ state }));
    expect(start.status).toBe(200);
    expect(start.text).not.toContain('<script>');
    expect(start.text).toContain('&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#39;&#96;');
    const wrong = await browser.submit(formOf(start), { username: '<img src=x onerror=alert(1)>', password: 'x' });
    expect(wrong.text).not.toContain('<img');
    expect(formOf(wrong).fields.state).toBe(state);
    const unknown = await browser.get(authorizePath({ client_id: 'x<b>y' }));
    expect(unknown.status).toBe(400);
    expect(unknown.text).not.toContain('<b>');
    const badUri = await browser.get(authorizePath({ redirect_uri: 'https://evil.example/"><script>x</script>' }));
    expect(badUri.status).toBe(400);
    expect(badUri.text).not.toContain('<script>');
  });

  it('escapes the application and user names on the consent page', async () => {
    t.sandbox.db.prepare(`UPDATE "demo/applications" SET name = '<i>Evil</i> & co' WHERE identifier = 'svc-cli'`).run();
    const consent = await signIn(createBrowser(t), 'demo');
    expect(consent.text).toContain('&#60;i&#62;Evil&#60;/i&#62; &#38; co');
    expect(consent.text).not.toContain('<i>');
  });
});

describe('what the tokens open', () => {
  it('the access token works on the data and authentication interfaces with the user’s permissions', async () => {
    const tokens = await tokensFor(createBrowser(t), 'demo');
    const accounts = await t.call('POST', 'api/v1/accounts', { token: tokens.access_token, json: { limit: 2 } });
    expect(accounts.status, accounts.text).toBe(200);
    expect(accounts.json<unknown[]>()).toHaveLength(2);
    const info = await t.call('GET', 'auth/v1/', { token: tokens.access_token });
    expect(info.status).toBe(200);
    expect(info.json()).toMatchObject({ user: t.user('demo').id, admin: true, auth: { application: appId('svc-cli') } });
    const field = await tokensFor(createBrowser(t), 'field');
    expect((await t.call('POST', 'api/v1/accounts', { token: field.access_token, json: {} })).status).toBe(403);
    // The refresh token is no bearer token.
    expect((await t.call('GET', 'auth/v1/', { token: tokens.refresh_token })).status).toBe(401);
  });

  it('/userinfo answers for a bearer token and for the session cookie, and 401 for neither', async () => {
    const browser = createBrowser(t);
    const tokens = await tokensFor(browser, 'demo');
    const demo = t.user('demo');
    const expected = {
      sub: String(demo.id),
      name: 'demo',
      preferred_username: 'demo',
      email: demo.email,
      zoneinfo: 'Europe/Berlin',
      locale: 'en-US',
      nopublic: false,
      apionly: false,
      updated_at: expect.any(Number),
      groups: [{ id: expect.any(Number), name: 'Administrators', writable: true }],
      permissions: expect.arrayContaining([{ identifier: 'admin', writable: true }, { identifier: 'accounts', writable: true }]),
    };
    const bearer = await t.call('GET', 'oauth2/v1/userinfo', { token: tokens.access_token, headers: { accept: 'application/json' } });
    expect(bearer.status, bearer.text).toBe(200);
    expect(bearer.json()).toEqual(expected);
    const byCookie = await browser.get('/demo/oauth2/v1/userinfo', { accept: 'application/json' });
    expect(byCookie.status).toBe(200);
    expect(JSON.parse(byCookie.text)).toEqual(expected);
    const none = await t.call('GET', 'oauth2/v1/userinfo', { token: null });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="demo"');
    const bad = await t.call('GET', 'oauth2/v1/userinfo', { token: 'f'.repeat(40) });
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toBe('Bearer realm="demo", error="invalid_token"');
    // A cookie of a session that only started (nobody signed in) is no credential.
    const fresh = createBrowser(t);
    await fresh.get(authorizePath());
    expect((await fresh.get('/demo/oauth2/v1/userinfo')).status).toBe(401);
  });

  it('/userinfo carries the claims of the user’s contact', async () => {
    const db = t.sandbox.db;
    const contact = Number(
      db.prepare(`INSERT INTO "demo/contacts" (firstname, lastname, phone, city, country, birthdate, type) VALUES ('Dana', 'Demo', '+49 30 1234', 'Berlin', 'DE', 0, 1)`).run().lastInsertRowid,
    );
    db.prepare('UPDATE "demo/users" SET contact = ? WHERE name = ?').run(contact, 'demo');
    const tokens = await tokensFor(createBrowser(t), 'demo');
    const answer = await t.call('GET', 'oauth2/v1/userinfo', { token: tokens.access_token });
    expect(answer.json()).toMatchObject({
      name: 'Dana Demo',
      given_name: 'Dana',
      family_name: 'Demo',
      phone_number: '+49 30 1234',
      birthdate: '1970-01-01',
      address: { locality: 'Berlin', country: 'DE' },
    });
  });

  it('the password grant gives tokens for a user’s name, password and one-time code', async () => {
    const secure = t.user('secure');
    const none = await post('token', { grant_type: 'password', username: 'secure', password: secure.password });
    expect(none.status).toBe(403);
    expect(none.json()).toMatchObject({ error: 'invalid_grant' });
    const ok = await post('token', { grant_type: 'password', username: 'secure', password: secure.password, otp: otpOf('secure') });
    expect(ok.status, ok.text).toBe(200);
    const tokens = ok.json<Tokens>();
    expect((await t.call('GET', 'auth/v1/', { token: tokens.access_token })).json()).toMatchObject({ user: secure.id });
    const wrong = await post('token', { grant_type: 'password', username: 'demo', password: 'wrong' }, { json: true });
    expect(wrong.status).toBe(403);
    expect(wrong.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid credentials (wrong name or password)' });
    expect(wrong.text).not.toContain(secretOf());
  });
});

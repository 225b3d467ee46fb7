/**
 * GET /authorize before anyone signs in: the client and its redirect URI are
 * checked first, and a problem there is an HTML error page (400), never a
 * redirect; loopback redirect URIs match on any port (RFC 8252); every other
 * problem goes back to the client by redirect, with the state (RFC 6749
 * section 4.1.2.1).
 */
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { authorizePath, createBrowser, formOf, oauthHelpers, pkce, REDIRECT, type Page } from './oauth-support.js';

const t = useTestSandbox();
const { authorize, exchange } = oauthHelpers(() => t, () => Math.floor(Date.now() / 1000));

/** Asserts an error page: 400, HTML, no Location, the message naming `words`. */
function expectErrorPage(page: Page, words: RegExp): void {
  expect(page.status, page.text).toBe(400);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.location).toBeUndefined();
  expect(page.text).toMatch(words);
}

/** Asserts a redirect to REDIRECT carrying an error and the state. */
function expectErrorRedirect(page: Page, error: string, state: string | null = 'st'): void {
  expect(page.status, page.text).toBe(303);
  expect(`${page.location?.origin}${page.location?.pathname}`).toBe(REDIRECT);
  expect(page.location?.searchParams.get('error')).toBe(error);
  expect(page.location?.searchParams.get('error_description')).toBeTruthy();
  expect(page.location?.searchParams.get('state')).toBe(state);
  expect(page.location?.searchParams.has('code')).toBe(false);
}

describe('the client and its redirect URI: an error page, never a redirect', () => {
  const get = (params: Record<string, string | undefined>) => createBrowser(t).get(authorizePath({ state: 'st', ...params }));

  it('refuses an unknown, missing or inactive client', async () => {
    expectErrorPage(await get({ client_id: 'nobody' }), /No active application has the client_id &#39;nobody&#39;/);
    expectErrorPage(await get({ client_id: undefined }), /client_id/);
    expectErrorPage(await get({ client_id: 'retired' }), /No active application/);
    expectErrorPage(await get({ client_id: '-bad id-' }), /No active application/);
  });

  it('refuses a redirect URI that is not registered, even when everything else is wrong too', async () => {
    expectErrorPage(await get({ redirect_uri: 'https://evil.example/callback', response_type: 'token' }), /not registered/);
    expectErrorPage(await get({ redirect_uri: 'http://127.0.0.1:53682/other' }), /not registered/);
    expectErrorPage(await get({ redirect_uri: 'http://127.0.0.1:53682/callback?x=1' }), /not registered/);
    expectErrorPage(await get({ redirect_uri: 'http://127.0.0.2:53682/callback' }), /HTTPS/);
    expectErrorPage(await get({ redirect_uri: undefined }), /redirect_uri/);
    expectErrorPage(await get({ redirect_uri: 'callback' }), /not an absolute/);
    expectErrorPage(await get({ redirect_uri: 'javascript:alert(1)' }), /not an absolute/);
  });

  it('refuses a registered redirect URI that is neither HTTPS nor loopback, and one with a fragment or user info', async () => {
    t.sandbox.db
      .prepare(`UPDATE "demo/applications" SET callbackurls = ? WHERE identifier = 'reporting'`)
      .run(JSON.stringify(['http://reports.example/cb', 'https://reports.example/cb', 'https://reports.example/cb#frag', 'http://user:pw@127.0.0.1/cb']));
    expectErrorPage(await get({ client_id: 'reporting', redirect_uri: 'http://reports.example/cb' }), /must use HTTPS/);
    expectErrorPage(await get({ client_id: 'reporting', redirect_uri: 'https://reports.example/cb#frag' }), /fragment/);
    expectErrorPage(await get({ client_id: 'reporting', redirect_uri: 'http://user:pw@127.0.0.1/cb' }), /user name or password/);
    const ok = await get({ client_id: 'reporting', redirect_uri: 'https://reports.example/cb' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Reporting');
  });

  it('reads callbackurls stored as a JSON array or as a JSON string holding one', async () => {
    t.sandbox.db.prepare(`UPDATE "demo/applications" SET callbackurls = ? WHERE identifier = 'reporting'`).run(JSON.stringify(JSON.stringify(['https://r.example/cb'])));
    expect((await get({ client_id: 'reporting', redirect_uri: 'https://r.example/cb' })).status).toBe(200);
    t.sandbox.db.prepare(`UPDATE "demo/applications" SET callbackurls = NULL WHERE identifier = 'reporting'`).run();
    expectErrorPage(await get({ client_id: 'reporting', redirect_uri: 'https://r.example/cb' }), /not registered/);
  });
});

describe('loopback redirect URIs (RFC 8252)', () => {
  it('match the registered one on any port, for 127.0.0.1 and localhost, and the code goes to that port', async () => {
    for (const uri of ['http://127.0.0.1:1/callback', 'http://127.0.0.1:65535/callback', 'http://localhost:8080/callback', 'http://127.0.0.1/callback']) {
      const page = await createBrowser(t).get(authorizePath({ redirect_uri: uri }));
      expect(page.status, uri).toBe(200);
    }
    const browser = createBrowser(t);
    const params = await authorize(browser, 'demo', { redirect_uri: 'http://localhost:4711/callback', state: 's' });
    expect(params.get('state')).toBe('s');
    const code = params.get('code') ?? '';
    // The token request names the same URI, port and all.
    const wrongPort = await exchange(code, { redirect_uri: 'http://localhost:4712/callback' });
    expect(wrongPort.status).toBe(403);
    expect(wrongPort.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('redirects approval to the requested port', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath({ redirect_uri: 'http://127.0.0.1:40001/callback' }));
    const consent = await browser.submit(formOf(start), { username: 'demo', password: t.user('demo').password });
    const done = await browser.submit(formOf(consent), { decision: 'approve' });
    expect(done.location?.host).toBe('127.0.0.1:40001');
  });
});

describe('other request errors go back to the client by redirect, with the state', () => {
  const get = (params: Record<string, string | undefined>) => createBrowser(t).get(authorizePath({ state: 'st', ...params }));

  it('answers response_type other than code with unsupported_response_type, and a missing one with invalid_request', async () => {
    expectErrorRedirect(await get({ response_type: 'token' }), 'unsupported_response_type');
    expectErrorRedirect(await get({ response_type: undefined }), 'invalid_request');
  });

  it('takes only S256 challenges: another method, a method without a challenge, or a malformed challenge is invalid_request', async () => {
    const { challenge } = pkce();
    expectErrorRedirect(await get({ code_challenge: challenge, code_challenge_method: 'plain' }), 'invalid_request');
    expectErrorRedirect(await get({ code_challenge: challenge }), 'invalid_request');
    expectErrorRedirect(await get({ code_challenge_method: 'S256' }), 'invalid_request');
    expectErrorRedirect(await get({ code_challenge: 'short', code_challenge_method: 'S256' }), 'invalid_request');
    expect((await get({ code_challenge: challenge, code_challenge_method: 'S256' })).status).toBe(200);
  });

  it('refuses a repeated parameter and a response_mode it does not serve', async () => {
    const path = `${authorizePath({ state: 'st' })}&response_type=code`;
    expectErrorRedirect(await createBrowser(t).get(path), 'invalid_request');
    expectErrorRedirect(await get({ response_mode: 'form_post' }), 'invalid_request');
    expect((await get({ response_mode: 'query' })).status).toBe(200);
  });

  it('keeps the redirect URI’s own query and leaves the state out when it is the problem', async () => {
    t.sandbox.db.prepare(`UPDATE "demo/applications" SET callbackurls = ? WHERE identifier = 'reporting'`).run(JSON.stringify(['https://r.example/cb?tenant=1']));
    const page = await get({ client_id: 'reporting', redirect_uri: 'https://r.example/cb?tenant=1', response_type: 'token' });
    expect(page.status).toBe(303);
    expect(page.location?.searchParams.get('tenant')).toBe('1');
    expect(page.location?.searchParams.get('error')).toBe('unsupported_response_type');
    expectErrorRedirect(await get({ state: 'x'.repeat(5000) }), 'invalid_request', null);
  });
});

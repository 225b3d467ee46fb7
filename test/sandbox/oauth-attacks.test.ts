/**
 * The OAuth 2.0 interface against an attacker, over HTTP:
 *
 * - redirect URIs spelt to slip past the loopback rule (user info, a look-alike
 *   host, trailing dots, IPv6, encoded dots, backslashes, fragments, another
 *   path): a 400 page, never a redirect; the spellings URL parsers read as the
 *   loopback callback anyway still redirect only there;
 * - races: the same refresh token or code sent many times at once gets tokens
 *   once, whatever the interleaving;
 * - a repeated parameter in a form body (RFC 6749 section 3.1: parameters
 *   must not be sent twice) is invalid_request.
 */
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { authorizePath, basic, createBrowser, formOf, oauthHelpers, type Tokens } from './oauth-support.js';

const t = useTestSandbox();
const { authorize, exchange, post, secretOf, tokensFor } = oauthHelpers(() => t, () => Math.floor(Date.now() / 1000));

describe('redirect URIs that try to leave the loopback interface', () => {
  it.each([
    'http://127.0.0.1@evil.example/callback',
    'http://evil.example\\@127.0.0.1/callback',
    'http://localhost.evil.example/callback',
    'http://127.0.0.1.evil.example/callback',
    'http://127.0.0.1%2eevil.example/callback',
    'http://localhost./callback',
    'http://[::ffff:7f00:1]:4000/callback',
    'http://[::1]:4000/callback',
    'https://127.0.0.1:4000/callback',
    'http://127.0.0.1:4000/callback#x',
    'http://127.0.0.1:4000/callback/',
    'http://127.0.0.1:4000/callback/..%2F..%2Fevil',
    'http://127.0.0.1:4000/%2Fcallback',
    'http://127.0.0.1:4000//callback',
    'http://127.0.0.1:4000/callback?next=https://evil.example',
    'http://127.0.0.1:65536/callback',
    ' http://127.0.0.1:4000/callback',
    'javascript://127.0.0.1/callback',
    '//127.0.0.1:4000/callback',
  ])('%s: a 400 page, no redirect', async (uri) => {
    const page = await createBrowser(t).get(authorizePath({ redirect_uri: uri, state: 's' }));
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.text).toContain('<title>Cannot authorize</title>');
  });

  it.each([
    ['http://127.1:4001/callback', 'http://127.0.0.1:4001/callback'],
    ['http://0x7f000001:4002/callback', 'http://127.0.0.1:4002/callback'],
    ['http://127.0.0.1.:4003/callback', 'http://127.0.0.1:4003/callback'],
    ['http://127.0.0.1:4004/x/%2e%2e/callback', 'http://127.0.0.1:4004/callback'],
    ['http://LOCALHOST:4005/./callback', 'http://localhost:4005/callback'],
  ])('%s, which URL parsers read as the loopback callback, redirects only to %s', async (uri, where) => {
    const params = await authorize(createBrowser(t), 'demo', { redirect_uri: uri, state: 'st' });
    expect(params.get('state')).toBe('st');
    const code = params.get('code') ?? '';
    // The code is bound to the redirect URI as it was sent.
    expect((await exchange(code, { redirect_uri: where })).json()).toMatchObject({ error: 'invalid_grant' });
    const again = await authorize(createBrowser(t), 'demo', { redirect_uri: uri });
    expect((await exchange(again.get('code') ?? '', { redirect_uri: uri })).status).toBe(200);
  });

  it('sends the approval to where the URI points, nowhere else', async () => {
    const browser = createBrowser(t);
    const start = await browser.get(authorizePath({ redirect_uri: 'http://0x7f000001:4010/x/%2e%2e/callback', state: 's' }));
    expect(start.status).toBe(200);
    const consent = await browser.submit(formOf(start, 'signin-form'), { username: 'demo', password: t.user('demo').password });
    const done = await browser.submit(formOf(consent, 'consent-form'), { decision: 'approve' });
    expect(done.status).toBe(303);
    expect(`${done.location?.origin}${done.location?.pathname}`).toBe('http://127.0.0.1:4010/callback');
  });
});

describe('races', () => {
  it('one refresh token sent 16 times at once: one answer has tokens, the others invalid_grant, and the winner’s tokens work', async () => {
    const first = await tokensFor(createBrowser(t));
    const answers = await Promise.all(Array.from({ length: 16 }, () => post('token', { grant_type: 'refresh_token', refresh_token: first.refresh_token })));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect({ status: a.status, error: a.json().error }).toEqual({ status: 403, error: 'invalid_grant' });
    const winner = won[0]!.json<Tokens>();
    expect((await t.call('GET', 'api/v1/accounts/1', { token: winner.access_token })).status).not.toBe(401);
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: winner.refresh_token })).status).toBe(200);
  });

  it('one code sent 16 times at once: one answer has tokens, and the reuse revokes them', async () => {
    const code = (await authorize(createBrowser(t))).get('code') ?? '';
    const answers = await Promise.all(Array.from({ length: 16 }, () => exchange(code)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const winner = answers.find((a) => a.status === 200)!.json<Tokens>();
    // The reuses came after the exchange (one at a time): the tokens it issued are revoked.
    expect((await t.call('GET', 'api/v1/accounts/1', { token: winner.access_token })).status).toBe(401);
  });
});

describe('repeated parameters', () => {
  // The form parser (src/sandbox/http/form.ts) tells which names were repeated; the OAuth routes refuse them.
  it('a parameter sent twice in a /token body is invalid_request (RFC 6749 section 3.1)', async () => {
    const answer = await fetch(`${t.sandbox.origin}/demo/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('svc-cli', secretOf()) },
      body: 'grant_type=password&grant_type=refresh_token&refresh_token=x',
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error: 'invalid_request', error_description: "'grant_type' is given more than once" });
  });
});

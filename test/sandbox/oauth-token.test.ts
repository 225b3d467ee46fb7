/**
 * The token endpoints of the sandbox's OAuth 2.0 interface: code exchange
 * with PKCE, single-use codes and refresh tokens, client authentication,
 * revocation, introspection, access-token expiry on the sandbox clock, and
 * the end of every token when the application is deactivated.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { basic, createBrowser, oauthHelpers, pkce, REDIRECT, type Tokens } from './oauth-support.js';

let clock: number;
const nowSec = (): number => Math.floor(clock / 1000);

beforeEach(() => {
  clock = Date.UTC(2030, 0, 15, 12, 0, 10);
});
// A fresh sandbox for each test, with a short access-token lifetime to expire on the test clock.
const t = useTestSandbox({ per: 'test', now: () => clock, oauthAccessTtlSeconds: 600 });
const { secretOf, post, authorize, exchange, tokensFor } = oauthHelpers(() => t, nowSec);

/** A code for demo (with this PKCE challenge, if any). */
async function codeFor(challenge?: string): Promise<string> {
  const params = challenge ? { code_challenge: challenge, code_challenge_method: 'S256' } : {};
  return (await authorize(createBrowser(t), 'demo', params)).get('code') ?? '';
}

const bearerWorks = async (token: string): Promise<boolean> => (await t.call('HEAD', 'auth/v1/', { token })).status === 204;

describe('POST /token: authorization_code', () => {
  it('answers with the access-token lifetime the sandbox was started with', async () => {
    const answer = await exchange(await codeFor());
    expect(answer.json<Tokens>().expires_in).toBe(600);
    expect(answer.json<Tokens>().refresh_token_expires_in).toBe(100 * 86_400);
  });

  it('checks the PKCE verifier: a wrong or missing one is invalid_grant, the right one works', async () => {
    const { verifier, challenge } = pkce();
    const wrong = await exchange(await codeFor(challenge), { code_verifier: pkce().verifier });
    expect(wrong.status).toBe(403);
    expect(wrong.json()).toEqual({ error: 'invalid_grant', error_description: "'code_verifier' does not match the code's challenge" });
    const missing = await exchange(await codeFor(challenge));
    expect(missing.status).toBe(403);
    expect(missing.json()).toMatchObject({ error: 'invalid_grant' });
    expect(missing.json<{ error_description: string }>().error_description).toMatch(/code_verifier/);
    const right = await exchange(await codeFor(challenge), { code_verifier: verifier });
    expect(right.status, right.text).toBe(200);
    // A verifier for a code without a challenge is refused too (no PKCE downgrade).
    expect((await exchange(await codeFor(), { code_verifier: verifier })).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('takes a code once: its reuse is invalid_grant and revokes the tokens issued for it', async () => {
    const code = await codeFor();
    const first = (await exchange(code)).json<Tokens>();
    expect(await bearerWorks(first.access_token)).toBe(true);
    const again = await exchange(code);
    expect(again.status).toBe(403);
    expect(again.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await bearerWorks(first.access_token)).toBe(false);
    const refresh = await post('token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses an expired code, a redirect_uri that differs, and a code of another client', async () => {
    const late = await codeFor();
    clock += 301_000;
    expect((await exchange(late)).json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
    const other = await exchange(await codeFor(), { redirect_uri: 'http://127.0.0.1:53683/callback' });
    expect(other.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/redirect_uri/) });
    const stolen = await post('token', { grant_type: 'authorization_code', code: await codeFor(), redirect_uri: REDIRECT }, { auth: basic('reporting', secretOf('reporting')) });
    expect(stolen.status).toBe(403);
    expect(stolen.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange('0'.repeat(40))).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange('not a code')).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('answers a missing parameter with invalid_request and an unknown grant type with unsupported_grant_type', async () => {
    const noRedirect = await post('token', { grant_type: 'authorization_code', code: await codeFor() });
    expect(noRedirect.status).toBe(400);
    expect(noRedirect.json()).toMatchObject({ error: 'invalid_request' });
    expect((await post('token', {})).json()).toMatchObject({ error: 'invalid_request' });
    const unknown = await post('token', { grant_type: 'client_credentials' });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toMatchObject({ error: 'unsupported_grant_type' });
    expect(unknown.headers.get('cache-control')).toBe('no-store');
  });
});

describe('client authentication', () => {
  it('takes HTTP Basic or client_id and client_secret in the body (form or JSON)', async () => {
    const code = await codeFor();
    const body = await post('token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'svc-cli', client_secret: secretOf() }, { auth: null });
    expect(body.status, body.text).toBe(200);
    const json = await post('token', { grant_type: 'authorization_code', code: await codeFor(), redirect_uri: REDIRECT, client_id: 'svc-cli', client_secret: secretOf() }, { auth: null, json: true });
    expect(json.status, json.text).toBe(200);
  });

  it('answers no, unknown or wrong credentials with 401 invalid_client and a Basic challenge', async () => {
    const cases: [string, Record<string, string>, string | null][] = [
      ['none', {}, null],
      ['wrong secret', {}, basic('svc-cli', 'wrong')],
      ["another application's secret", {}, basic('svc-cli', secretOf('reporting'))],
      ['unknown client', {}, basic('nobody', secretOf())],
      ['inactive client', {}, basic('retired', secretOf('retired'))],
      ['body, wrong secret', { client_id: 'svc-cli', client_secret: 'wrong' }, null],
      ['malformed Basic', {}, 'Basic !!!'],
      ['Basic without a colon', {}, `Basic ${Buffer.from('svc-cli').toString('base64')}`],
    ];
    for (const [what, extra, auth] of cases) {
      const answer = await post('token', { grant_type: 'password', username: 'demo', password: t.user('demo').password, ...extra }, { auth });
      expect(answer.status, what).toBe(401);
      expect(answer.headers.get('www-authenticate'), what).toBe('Basic realm="demo"');
      expect(answer.json(), what).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
      expect(answer.text).not.toContain(t.user('demo').password);
    }
  });

  it('refuses credentials sent both ways at once', async () => {
    const answer = await post('token', { grant_type: 'password', client_id: 'svc-cli', client_secret: secretOf() });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('POST /token: refresh_token', () => {
  it('rotates: new tokens each time; the old refresh token is invalid_grant and the old access token is dead', async () => {
    const first = await tokensFor(createBrowser(t));
    const second = await post('token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(second.status, second.text).toBe(200);
    const next = second.json<Tokens>();
    expect(next.access_token).not.toBe(first.access_token);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(await bearerWorks(first.access_token)).toBe(false);
    expect(await bearerWorks(next.access_token)).toBe(true);
    const reuse = await post('token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(reuse.status).toBe(403);
    expect(reuse.json()).toMatchObject({ error: 'invalid_grant' });
    const third = await post('token', { grant_type: 'refresh_token', refresh_token: next.refresh_token });
    expect(third.status).toBe(200);
  });

  it('is bound to its client', async () => {
    const tokens = await tokensFor(createBrowser(t));
    const other = await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { auth: basic('reporting', secretOf('reporting')) });
    expect(other.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(200);
  });

  it('lets the access token expire after the TTL on the sandbox clock, and refreshes after that', async () => {
    const tokens = await tokensFor(createBrowser(t));
    clock += 599_000;
    expect(await bearerWorks(tokens.access_token)).toBe(true);
    clock += 2_000;
    expect(await bearerWorks(tokens.access_token)).toBe(false);
    expect((await t.call('POST', 'api/v1/accounts', { token: tokens.access_token, json: {} })).status).toBe(401);
    const fresh = await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(await bearerWorks(fresh.json<Tokens>().access_token)).toBe(true);
  });

  it('lets the refresh token expire after 100 days', async () => {
    const tokens = await tokensFor(createBrowser(t));
    clock += (100 * 86_400 + 1) * 1000;
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('the end of an application or user', () => {
  it('deactivating the application ends its access and refresh tokens, and its client', async () => {
    const tokens = await tokensFor(createBrowser(t));
    const code = await codeFor();
    t.sandbox.db.prepare(`UPDATE "demo/applications" SET activity = 1 WHERE identifier = 'svc-cli'`).run();
    expect(await bearerWorks(tokens.access_token)).toBe(false);
    t.sandbox.db.prepare(`UPDATE "demo/applications" SET activity = 0 WHERE identifier = 'svc-cli'`).run();
    // Reactivated, the application is a client again, but its old grants stay dead.
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(code)).json()).toMatchObject({ error: 'invalid_grant' });
    t.sandbox.db.prepare(`UPDATE "demo/applications" SET activity = 1 WHERE identifier = 'svc-cli'`).run();
    expect((await exchange('0'.repeat(40))).json()).toMatchObject({ error: 'invalid_client' });
  });

  it('deactivating the user ends the user’s tokens', async () => {
    const tokens = await tokensFor(createBrowser(t), 'staff');
    t.sandbox.db.prepare(`UPDATE "demo/users" SET activity = 1 WHERE name = 'staff'`).run();
    expect(await bearerWorks(tokens.access_token)).toBe(false);
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('POST /revoke', () => {
  it('revokes an access token, leaving the refresh token', async () => {
    const tokens = await tokensFor(createBrowser(t));
    const answer = await post('revoke', { token: tokens.access_token });
    expect(answer.status).toBe(200);
    expect(await bearerWorks(tokens.access_token)).toBe(false);
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(200);
  });

  it('revokes a refresh token and its access token', async () => {
    const tokens = await tokensFor(createBrowser(t));
    expect((await post('revoke', { token: tokens.refresh_token, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect(await bearerWorks(tokens.access_token)).toBe(false);
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('answers 200 for an unknown token and leaves another client’s tokens alone', async () => {
    expect((await post('revoke', { token: 'f'.repeat(40) })).status).toBe(200);
    expect((await post('revoke', { token: 'whatever' })).status).toBe(200);
    const tokens = await tokensFor(createBrowser(t));
    const other = basic('reporting', secretOf('reporting'));
    expect((await post('revoke', { token: tokens.access_token }, { auth: other })).status).toBe(200);
    expect((await post('revoke', { token: tokens.refresh_token }, { auth: other })).status).toBe(200);
    expect(await bearerWorks(tokens.access_token)).toBe(true);
    expect((await post('token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(200);
  });

  it('needs client authentication and a token', async () => {
    expect((await post('revoke', { token: 'f'.repeat(40) }, { auth: null })).status).toBe(401);
    const none = await post('revoke', {});
    expect(none.status).toBe(400);
    expect(none.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('POST /introspect', () => {
  it('describes an active access or refresh token, with Basic or body credentials', async () => {
    const tokens = await tokensFor(createBrowser(t), 'staff');
    const expected = { active: true, client_id: 'svc-cli', username: 'staff', sub: String(t.user('staff').id) };
    const access = await post('introspect', { token: tokens.access_token });
    expect(access.status).toBe(200);
    expect(access.json()).toEqual({ ...expected, exp: nowSec() + 600 });
    const body = await post('introspect', { token: tokens.refresh_token, client_id: 'svc-cli', client_secret: secretOf() }, { auth: null, json: true });
    expect(body.json()).toEqual({ ...expected, exp: nowSec() + 100 * 86_400 });
  });

  it('answers {active: false} for unknown, revoked, expired and other clients’ tokens', async () => {
    const tokens = await tokensFor(createBrowser(t));
    expect((await post('introspect', { token: tokens.access_token }, { auth: basic('reporting', secretOf('reporting')) })).json()).toEqual({ active: false });
    expect((await post('introspect', { token: tokens.refresh_token }, { auth: basic('reporting', secretOf('reporting')) })).json()).toEqual({ active: false });
    expect((await post('introspect', { token: 'f'.repeat(40) })).json()).toEqual({ active: false });
    // A login token of the same application is no OAuth token.
    const login = await t.login('demo');
    expect(await bearerWorks(login.token)).toBe(true);
    expect((await post('introspect', { token: login.token })).json()).toEqual({ active: false });
    clock += 601_000;
    expect((await post('introspect', { token: tokens.access_token })).json()).toEqual({ active: false });
    await post('revoke', { token: tokens.refresh_token });
    expect((await post('introspect', { token: tokens.refresh_token })).json()).toEqual({ active: false });
  });

  it('needs client authentication', async () => {
    const answer = await post('introspect', { token: 'f'.repeat(40) }, { auth: null });
    expect(answer.status).toBe(401);
    expect(answer.json()).toMatchObject({ error: 'invalid_client' });
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { regenerateAppSecret } from '../../src/sandbox/auth/app-secrets.js';
import { PERMISSION_NAMES } from '../../src/sandbox/seed/identities.js';
import { useTestSandbox, type LoginToken } from '../helpers/sandbox.js';
import { authHelpers } from './auth-support.js';

let clock: number;
const nowSec = (): number => Math.floor(clock / 1000);

beforeEach(() => {
  clock = Date.UTC(2030, 0, 15, 12, 0, 0);
});
// A fresh sandbox for each test (started after the clock is set): tests here sign in, out and change secrets.
const t = useTestSandbox({ per: 'test', now: () => clock });

const { secretOf, appId, postLogin, credentials } = authHelpers(() => t);

describe('token lifecycle', () => {
  it('stops a token once the clock passes its expdate', async () => {
    const { token } = await t.login('demo', { expdate: nowSec() + 600 });
    expect((await t.call('GET', 'api/v1/accounts/1', { token })).status).toBe(200);
    clock += 601_000;
    expect((await t.call('GET', 'api/v1/accounts/1', { token })).status).toBe(401);
    expect((await t.call('HEAD', 'auth/v1/', { token })).status).toBe(401);
  });

  it('keeps one token per identifier: logging in again replaces it', async () => {
    const first = await t.login('demo', { identifier: 'tablet' });
    const other = await t.login('demo', { identifier: 'desktop' });
    const second = await t.login('demo', { identifier: 'tablet' });
    expect(second.token).not.toBe(first.token);
    expect((await t.call('GET', 'api/v1/accounts/1', { token: first.token })).status).toBe(401);
    expect((await t.call('GET', 'api/v1/accounts/1', { token: second.token })).status).toBe(200);
    expect((await t.call('GET', 'api/v1/accounts/1', { token: other.token })).status).toBe(200);
  });

  it('logs out with 205, then the token is refused and a second logout is 204', async () => {
    const { token } = await t.login('demo');
    const out = await t.call('GET', 'auth/v1/logout', { token });
    expect(out.status).toBe(205);
    expect(out.text).toBe('');
    expect((await t.call('GET', 'api/v1/accounts/1', { token })).status).toBe(401);
    expect((await t.call('GET', 'auth/v1/logout', { token })).status).toBe(204);
    expect((await t.call('GET', 'auth/v1/logout', { token: null })).status).toBe(204);
  });
});

describe('GET and HEAD /auth/v1/', () => {
  const groupId = (name: string): string =>
    String((t.sandbox.db.prepare('SELECT "ID" FROM "demo/groups" WHERE name = ?').get(name) as { ID: number }).ID);

  it('describes the admin demo user', async () => {
    const { token } = await t.login('demo');
    const answer = await t.call('GET', 'auth/v1/', { token });
    expect(answer.status).toBe(200);
    const demo = t.user('demo');
    const all = Object.fromEntries(PERMISSION_NAMES.map((p) => [p, true]));
    expect(answer.json()).toMatchObject({
      user: demo.id,
      name: 'demo',
      email: demo.email,
      contact: null,
      admin: true,
      nopublic: false,
      groups: { [groupId('Administrators')]: true },
      permissions: { ...all, admin: true },
      settings: {},
      auth: { user: demo.id, application: appId('svc-cli'), lang: 'en_US' },
    });
  });

  it('describes the reader as read-only, also for a token without application', async () => {
    const { token } = await t.login('reader', { application: null });
    const info = (await t.call('GET', 'auth/v1/', { token })).json<Record<string, unknown>>();
    expect(info.admin).toBe(false);
    expect(info.permissions).toEqual(Object.fromEntries(PERMISSION_NAMES.map((p) => [p, false])));
    expect(info.groups).toEqual({ [groupId('Readers')]: true });
    expect(info.auth).toEqual({ user: t.user('reader').id, application: null, lang: 'en_US' });
  });

  it('leaves accounts out of the field user permissions', async () => {
    const { token } = await t.login('field');
    const info = (await t.call('GET', 'auth/v1/', { token })).json<{ permissions: Record<string, boolean> }>();
    expect(info.permissions).not.toHaveProperty('accounts');
    expect(info.permissions.tasks).toBe(true);
  });

  it('answers a missing or invalid token with 401 and WWW-Authenticate', async () => {
    for (const token of [null, 'f'.repeat(40)]) {
      const answer = await t.call('GET', 'auth/v1/', { token });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer realm="demo"/);
    }
  });

  it('verifies with HEAD: 204 valid, 401 invalid', async () => {
    const { token } = await t.login('demo', { application: null });
    const ok = await t.call('HEAD', 'auth/v1/', { token });
    expect(ok.status).toBe(204);
    expect(ok.text).toBe('');
    const bad = await t.call('HEAD', 'auth/v1/', { token: '0'.repeat(40) });
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await t.call('HEAD', 'auth/v1', { token: null })).status).toBe(401);
  });
});

describe('regenerateAppSecret', () => {
  it('keeps issued tokens, lets the new secret in and shuts the old one out', async () => {
    const old = secretOf('svc-cli');
    const { token } = await t.login('demo');
    const fresh = regenerateAppSecret({ db: t.sandbox.db, instance: 'demo', now: () => clock }, appId('svc-cli'));
    expect(fresh).not.toBe(old);
    expect((await t.call('GET', 'api/v1/accounts/1', { token })).status).toBe(200);
    const withNew = await postLogin(credentials('demo', { appsecret: fresh, identifier: 'new' }));
    expect(withNew.status).toBe(200);
    expect(withNew.json<LoginToken>().application).toBe(appId('svc-cli'));
    expect((await postLogin(credentials('demo', { appsecret: old, identifier: 'old' }))).status).toBe(401);
  });

  it('throws for an unknown application', () => {
    expect(() => regenerateAppSecret({ db: t.sandbox.db, instance: 'demo', now: () => clock }, 999)).toThrow(/no application/);
  });
});

describe('routing', () => {
  it('answers unknown paths with 404 text and wrong methods with 405 and Allow', async () => {
    const missing = await t.call('GET', 'auth/v1/whoami', { token: null });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^text\/plain/);
    expect((await t.call('GET', 'auth/v1/login/extra', { token: null })).status).toBe(404);
    const login = await t.call('GET', 'auth/v1/login', { token: null });
    expect(login.status).toBe(405);
    expect(login.headers.allow).toBe('POST');
    const logout = await t.call('POST', 'auth/v1/logout', { token: null });
    expect(logout.status).toBe(405);
    expect(logout.headers.allow).toBe('GET');
    const root = await t.call('DELETE', 'auth/v1/', { token: null });
    expect(root.status).toBe(405);
    expect(root.headers.allow).toBe('GET, HEAD');
  });
});

import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { regenerateAppSecret } from '../../src/sandbox/auth/app-secrets.js';
import { PERMISSION_NAMES } from '../../src/sandbox/seed/identities.js';
import { useTestSandbox, type LoginToken } from '../helpers/sandbox.js';
import { authHelpers } from './auth-support.js';

const DAY = 86_400;

/** A TOTP code written apart from the sandbox's: base32 via a bit string, HOTP by hand. */
function otpFor(secret: string, unixSeconds: number): string {
  const bits = [...secret.toUpperCase()].map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
  const counter = Buffer.from(Math.floor(unixSeconds / 30).toString(16).padStart(16, '0'), 'hex');
  const mac = createHmac('sha1', key).update(counter).digest();
  const at = mac[19]! & 0xf;
  const value = ((mac[at]! & 0x7f) << 24) | (mac[at + 1]! << 16) | (mac[at + 2]! << 8) | mac[at + 3]!;
  return String(value % 1_000_000).padStart(6, '0');
}

let clock: number;
const nowSec = (): number => Math.floor(clock / 1000);

beforeEach(() => {
  clock = Date.UTC(2030, 0, 15, 12, 0, 0);
});
// A fresh sandbox for each test (started after the clock is set): tests here sign in, out and change secrets.
const t = useTestSandbox({ per: 'test', now: () => clock });

const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
const { secretOf, appId, postLogin, credentials } = authHelpers(() => t);

describe('POST /auth/v1/login', () => {
  it('answers a wrong password or an unknown user with 401, without echoing the password', async () => {
    const wrong = await postLogin(credentials('demo', { password: 'not-the-password' }));
    expect(wrong.status).toBe(401);
    expect(wrong.text).toMatch(/invalid credentials/i);
    expect(wrong.text).not.toContain('not-the-password');
    const unknown = await postLogin(credentials('demo', { name: 'nobody' }));
    expect(unknown.status).toBe(401);
    expect(unknown.text).toBe(wrong.text);
  });

  it('logs in by name (form) and by e-mail (JSON), returning the token object', async () => {
    const demo = t.user('demo');
    const byName = await t.call('POST', 'auth/v1/login', {
      token: null,
      form: form({ name: 'demo', password: demo.password, identifier: 'laptop', appsecret: secretOf('svc-cli') }),
    });
    expect(byName.status).toBe(200);
    expect(byName.json()).toEqual({ application: appId('svc-cli'), expdate: nowSec() + 100 * DAY, identifier: 'laptop', token: expect.stringMatching(/^[0-9a-f]{40}$/), user: demo.id });
    const byEmail = await postLogin(credentials('demo', { name: demo.email.toUpperCase(), identifier: 'phone' }));
    expect(byEmail.status).toBe(200);
    expect(byEmail.json<LoginToken>()).toMatchObject({ application: null, identifier: 'phone', user: demo.id });
  });

  it('answers a missing name, password or identifier, or a malformed identifier, with 400', async () => {
    for (const missing of ['name', 'password', 'identifier']) {
      const fields: Record<string, unknown> = credentials('demo');
      delete fields[missing];
      const answer = await postLogin(fields);
      expect(answer.status, missing).toBe(400);
      expect(answer.text).toContain(missing);
    }
    expect((await t.call('POST', 'auth/v1/login', { token: null })).status).toBe(400);
    expect((await postLogin(credentials('demo', { identifier: 'has spaces' }))).status).toBe(400);
  });

  it('rejects an expdate that is not in the future with 400 and keeps a future one', async () => {
    expect((await postLogin(credentials('demo', { expdate: nowSec() - 60 }))).status).toBe(400);
    expect((await postLogin(credentials('demo', { expdate: nowSec() }))).status).toBe(400);
    expect((await postLogin(credentials('demo', { expdate: 'tomorrow' }))).status).toBe(400);
    const later = await postLogin(credentials('demo', { expdate: nowSec() + 3600 }));
    expect(later.status).toBe(200);
    expect(later.json<LoginToken>().expdate).toBe(nowSec() + 3600);
  });

  it('refuses inactive and expired users with 401', async () => {
    const users = '"demo/users"';
    t.sandbox.db.prepare(`UPDATE ${users} SET activity = 1 WHERE name = 'staff'`).run();
    expect((await postLogin(credentials('staff'))).status).toBe(401);
    t.sandbox.db.prepare(`UPDATE ${users} SET expdate = ? WHERE name = 'reader'`).run(nowSec() - 1);
    expect((await postLogin(credentials('reader'))).status).toBe(401);
  });
});

describe('two-factor login', () => {
  it('asks for the one-time code, refuses a wrong one and accepts the right one', async () => {
    const secret = t.user('secure').otpsecret!;
    const none = await postLogin(credentials('secure'));
    expect(none.status).toBe(401);
    expect(none.text).toMatch(/one-time code/i);
    const right = otpFor(secret, nowSec());
    const wrongCode = right === '000000' ? '000001' : '000000';
    const wrong = await postLogin(credentials('secure', { otp: wrongCode }));
    expect(wrong.status).toBe(401);
    expect(wrong.text).toMatch(/one-time code is invalid/i);
    expect(wrong.text).not.toContain(wrongCode);
    expect((await postLogin(credentials('secure', { otp: right }))).status).toBe(200);
  });

  it('allows one 30-second step of clock drift, not two', async () => {
    const secret = t.user('secure').otpsecret!;
    expect((await postLogin(credentials('secure', { otp: otpFor(secret, nowSec() - 30) }))).status).toBe(200);
    expect((await postLogin(credentials('secure', { otp: otpFor(secret, nowSec() + 30) }))).status).toBe(200);
    const stale = otpFor(secret, nowSec() - 90);
    if (stale !== otpFor(secret, nowSec()) && stale !== otpFor(secret, nowSec() - 30) && stale !== otpFor(secret, nowSec() + 30)) {
      expect((await postLogin(credentials('secure', { otp: stale }))).status).toBe(401);
    }
  });

  it('is handled by the login helper', async () => {
    expect((await t.login('secure')).user).toBe(t.user('secure').id);
  });
});

describe('application-specific tokens', () => {
  it('a token without appsecret opens the authentication interface but not the data interface', async () => {
    const { token, application } = await t.login('demo', { application: null });
    expect(application).toBeNull();
    expect((await t.call('GET', 'auth/v1/', { token })).status).toBe(200);
    const get = await t.call('GET', 'api/v1/accounts/1', { token });
    expect(get.status).toBe(401);
    expect(get.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await t.call('POST', 'api/v1/users', { token, json: { limit: 1 } })).status).toBe(401);
  });

  it('a token with the appsecret opens the data interface', async () => {
    const { token, application } = await t.login('demo');
    expect(application).toBe(appId('svc-cli'));
    const user = await t.call('GET', `api/v1/users/${t.user('demo').id}`, { token });
    expect(user.status).toBe(200);
    expect(user.json<{ name: string }>().name).toBe('demo');
  });

  it('refuses a wrong secret and the retired application secret without echoing them', async () => {
    const wrong = await postLogin(credentials('demo', { appsecret: 'made-up-secret' }));
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('made-up-secret');
    const retired = await postLogin(credentials('demo', { appsecret: secretOf('retired') }));
    expect(retired.status).toBe(401);
    expect(retired.text).not.toContain(secretOf('retired'));
  });

  it('stops the tokens of an application once it is deactivated', async () => {
    const { token } = await t.login('demo', { application: 'reporting' });
    expect((await t.call('GET', 'api/v1/accounts/1', { token })).status).toBe(200);
    t.sandbox.db.prepare('UPDATE "demo/applications" SET activity = 1 WHERE "ID" = ?').run(appId('reporting'));
    expect((await t.call('GET', 'api/v1/accounts/1', { token })).status).toBe(401);
    expect((await t.call('GET', 'auth/v1/', { token })).status).toBe(401);
    expect((await postLogin(credentials('demo', { appsecret: secretOf('reporting') }))).status).toBe(401);
  });
});

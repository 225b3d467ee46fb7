/**
 * Authorization that holds under attack: grants immune to a polluted
 * Object.prototype, one-time codes that work once, tokens that die with their
 * application and with their user, and applications readable by admin users only.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeBase32, totp } from '../../src/sandbox/auth/totp.js';
import { table } from '../../src/sandbox/schema.js';
import { useTestSandbox } from '../helpers/sandbox.js';
import { authHelpers } from './auth-support.js';

let clock: number;
const nowSec = (): number => Math.floor(clock / 1000);

beforeEach(() => {
  // Real time (the helper's tokens are issued at it), 10 s into a TOTP step.
  clock = Math.floor(Date.now() / 30_000) * 30_000 + 10_000;
});
// A fresh sandbox for each test (started after the clock is set): tests here sign in, out and change secrets.
const t = useTestSandbox({ per: 'test', now: () => clock });

const { appId, postLogin, credentials } = authHelpers(() => t);

/**
 * Runs `fn` with keys set on Object.prototype, as a form body such as
 * `__proto__[admin]=1` would have set them through a naive parser, and
 * restores the prototype afterwards. Non-enumerable, so the test's own HTTP
 * client is not disturbed; `in` and `obj[key]` still see them.
 */
async function withPollutedPrototype(keys: Record<string, unknown>, fn: () => Promise<void>): Promise<void> {
  const proto = Object.prototype as Record<string, unknown>;
  for (const [key, value] of Object.entries(keys)) Object.defineProperty(proto, key, { value, configurable: true, writable: true, enumerable: false });
  try {
    await fn();
  } finally {
    for (const key of Object.keys(keys)) delete proto[key];
  }
}

describe('grants are immune to a polluted Object.prototype', () => {
  it('gives nobody a permission, a group or admin rights they do not hold', async () => {
    const put = await t.call('PUT', 'api/v1/accounts', { json: { lastname: 'Admins Only', currency: 'EUR', ownergroup: 1 } });
    expect(put.status, put.text).toBe(201);
    const owned = put.json<{ ID: number }>().ID;
    await withPollutedPrototype({ admin: '1', accounts: true, dev: true }, async () => {
      const write = await t.call('PATCH', 'api/v1/accounts/1', { token: t.token('reader'), json: { taxid: 'pwned' } });
      expect(write.status, write.text).toBe(403);
      const read = await t.call('GET', 'api/v1/accounts/1', { token: t.token('field') });
      expect(read.status, read.text).toBe(403);
      const exported = await t.call('POST', 'api/v1/accounts', { token: t.token('staff'), json: { export: true } });
      expect(exported.status, exported.text).toBe(403);
      expect((await t.call('GET', `api/v1/accounts/${owned}`, { token: t.token('staff') })).status).toBe(404);
      const info = await t.call('GET', 'auth/v1/', { token: t.token('reader') });
      expect(info.json()).toMatchObject({ admin: false });
      expect(Object.keys(info.json<{ permissions: object }>().permissions)).not.toContain('admin');
    });
  });
});

describe('one-time codes', () => {
  const code = (offsetSteps: number): string => totp(decodeBase32(t.user('secure').otpsecret ?? ''), nowSec() + offsetSteps * 30);

  it('a code works once: its reuse within its window is refused (RFC 6238 section 5.2)', async () => {
    const now = code(0);
    expect((await postLogin(credentials('secure', { otp: now }))).status).toBe(200);
    const again = await postLogin(credentials('secure', { otp: now, identifier: 'device-2' }));
    expect(again.status).toBe(401);
    expect(again.text).toBe('Unauthorized: the one-time code was used already; wait for the next one');
    expect(again.text).not.toContain(now);
    clock += 30_000; // the next step: the code is still within its window (one step of drift)
    expect((await postLogin(credentials('secure', { otp: now }))).status).toBe(401);
  });

  it('after a code is used, no code of that step or an earlier one is accepted, and the next one is', async () => {
    const earlier = code(-1);
    const next = code(1);
    expect((await postLogin(credentials('secure', { otp: code(0) }))).status).toBe(200);
    if (earlier !== code(0) && earlier !== next) expect((await postLogin(credentials('secure', { otp: earlier }))).status).toBe(401);
    expect((await postLogin(credentials('secure', { otp: next }))).status).toBe(200);
  });

  it('a failed login does not use up the code', async () => {
    const wrongPassword = await postLogin(credentials('secure', { otp: code(0), password: 'wrong' }));
    expect(wrongPassword.status).toBe(401);
    const wrongSecret = await postLogin(credentials('secure', { otp: code(0), appsecret: 'not-a-secret' }));
    expect(wrongSecret.status).toBe(401);
    expect((await postLogin(credentials('secure', { otp: code(0) }))).status).toBe(200);
  });
});

describe('tokens of an application', () => {
  const setActivity = (id: number, activity: number): void => {
    t.sandbox.db.prepare(`UPDATE ${table('demo', 'applications')} SET activity = ? WHERE "ID" = ?`).run(activity, id);
  };
  const status = async (token: string): Promise<number> => (await t.call('GET', 'api/v1/accounts/1', { token })).status;

  it('die with its deactivation: reactivating the application does not revive them', async () => {
    const { token } = await t.login('demo');
    expect(await status(token)).toBe(200);
    setActivity(appId('svc-cli'), 1);
    expect(await status(token)).toBe(401);
    setActivity(appId('svc-cli'), 0);
    expect(await status(token)).toBe(401);
    expect((await t.call('HEAD', 'auth/v1/', { token })).status).toBe(401);
    const fresh = await t.login('demo');
    expect(await status(fresh.token)).toBe(200);
  });

  it('die when the application is marked deleted or removed, and stay dead if it comes back', async () => {
    const first = await t.login('demo', { identifier: 'one' });
    setActivity(appId('reporting'), 2);
    setActivity(appId('reporting'), 0);
    const reporting = await t.login('demo', { identifier: 'two', application: 'reporting' });
    expect(await status(reporting.token)).toBe(200);
    const apps = table('demo', 'applications');
    const row = t.sandbox.db.prepare(`SELECT * FROM ${apps} WHERE "ID" = ?`).get(appId('reporting')) as Record<string, unknown>;
    t.sandbox.db.prepare(`DELETE FROM ${apps} WHERE "ID" = ?`).run(appId('reporting'));
    expect(await status(reporting.token)).toBe(401);
    const cols = Object.keys(row);
    t.sandbox.db.prepare(`INSERT INTO ${apps} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...Object.values(row));
    expect(await status(reporting.token)).toBe(401);
    expect(await status(first.token)).toBe(200); // another application's tokens live on
  });
});

describe('tokens of a user', () => {
  const users = table('demo', 'users');
  const setActivity = (id: number, activity: number): void => {
    t.sandbox.db.prepare(`UPDATE ${users} SET activity = ? WHERE "ID" = ?`).run(activity, id);
  };
  const status = async (token: string): Promise<number> => (await t.call('GET', 'api/v1/accounts/1', { token })).status;

  it('die with the deactivation (or deletion mark) of the user: reactivating the user does not revive them', async () => {
    for (const activity of [1, 2]) {
      const { token } = await t.login('reader');
      expect(await status(token)).toBe(200);
      setActivity(t.user('reader').id, activity);
      expect(await status(token)).toBe(401);
      setActivity(t.user('reader').id, 0);
      expect(await status(token), `activity ${activity}, then 0`).toBe(401);
      expect((await t.call('HEAD', 'auth/v1/', { token })).status).toBe(401);
      expect(await status((await t.login('reader')).token)).toBe(200);
    }
    expect(await status(t.token('demo'))).toBe(200); // another user's tokens live on
  });

  it('die when the user is removed, and stay dead if it comes back', async () => {
    const { token } = await t.login('reader');
    const id = t.user('reader').id;
    const row = t.sandbox.db.prepare(`SELECT * FROM ${users} WHERE "ID" = ?`).get(id) as Record<string, unknown>;
    const cols = Object.keys(row);
    t.sandbox.db.pragma('foreign_keys = OFF'); // Records still refer to the user; only the row's removal matters here.
    try {
      t.sandbox.db.prepare(`DELETE FROM ${users} WHERE "ID" = ?`).run(id);
      t.sandbox.db.prepare(`INSERT INTO ${users} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...Object.values(row));
    } finally {
      t.sandbox.db.pragma('foreign_keys = ON');
    }
    expect(await status(token)).toBe(401);
  });
});

describe('applications are for admin users only', () => {
  it('answers 403 to non-admins holding dev for list, get, exists and paths into applications', async () => {
    for (const user of ['staff', 'reader']) {
      const token = t.token(user);
      const list = await t.call('POST', 'api/v1/applications', { token, json: {} });
      expect(list.status, `${user} list`).toBe(403);
      expect(list.text).toBe('Access denied: reading applications is for admin users only');
      expect((await t.call('GET', 'api/v1/applications/1', { token })).status, `${user} get`).toBe(403);
      expect((await t.call('HEAD', 'api/v1/applications/1', { token })).status, `${user} exists`).toBe(403);
      const related = await t.call('POST', 'api/v1/resources', { token, json: { fields: ['ID', 'application.name'] } });
      expect(related.status, `${user} related`).toBe(403);
    }
    expect((await t.call('POST', 'api/v1/resources', { token: t.token('staff'), json: { fields: ['ID'] } })).status).toBe(200);
    expect((await t.call('POST', 'api/v1/applications', { json: {} })).status).toBe(200);
    expect((await t.call('GET', 'api/v1/applications/1')).status).toBe(200);
  });
});

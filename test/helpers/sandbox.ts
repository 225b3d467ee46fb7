import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { issueToken } from '../../src/sandbox/auth/tokens.js';
import { decodeBase32, totp } from '../../src/sandbox/auth/totp.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import type { SeedUser } from '../../src/sandbox/seed/identities.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = unknown>(): T;
}

/** The token object `POST /auth/v1/login` answers with. */
export interface LoginToken {
  readonly application: number | null;
  readonly expdate: number | null;
  readonly identifier: string;
  readonly token: string;
  readonly user: number;
}

export interface LoginOptions {
  /** Client identifier; default `test-<name>`. */
  readonly identifier?: string;
  /** Seeded application whose secret is sent (default 'svc-cli'); null sends no appsecret. */
  readonly application?: string | null;
  /** Sent as is, in place of the seeded application's secret. */
  readonly appsecret?: string;
  /** One-time code; default: computed from the user's seeded secret at the sandbox clock. */
  readonly otp?: string;
  readonly expdate?: number;
}

export interface TestSandbox {
  readonly sandbox: Sandbox;
  /** `http://127.0.0.1:PORT/demo` */
  readonly instanceUrl: string;
  /** The seeded user with this name (demo, reader, field, secure, staff). */
  user(name: string): SeedUser;
  /** An application-specific token for a user, issued the way login issues it. */
  token(user?: string, application?: string): string;
  /**
   * Logs a seeded user in over HTTP (`POST /demo/auth/v1/login`) with the
   * seeded password and, by default, the svc-cli secret; throws unless 200.
   */
  login(name: string, opts?: LoginOptions): Promise<LoginToken>;
  /** One HTTP request to the sandbox; `path` is relative to the instance URL unless it starts with '/'. */
  call(method: string, path: string, opts?: { token?: string | null; json?: unknown; form?: string; headers?: Record<string, string> }): Promise<Answer>;
  close(): Promise<void>;
}

/** Starts an in-memory sandbox on 127.0.0.1, port 0, seeded like a real one. */
export async function startTestSandbox(opts: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ dataDir: ':memory:', port: 0, ...opts });
  const creds = sandbox.credentials.demo;
  if (!creds) throw new Error('the demo instance was not seeded');
  const user = (name: string): SeedUser => {
    const u = creds.users.find((x) => x.name === name);
    if (!u) throw new Error(`no seeded user ${name}`);
    return u;
  };
  const tokens = new Map<string, string>();
  const token = (name = 'demo', app = 'svc-cli'): string => {
    const key = `${name}/${app}`;
    let t = tokens.get(key);
    if (!t) {
      const application = creds.applications.find((a) => a.identifier === app)?.id ?? null;
      const ctx = { db: sandbox.db, instance: 'demo', now: () => Date.now() };
      t = issueToken(ctx, { user: user(name).id, application, identifier: `test-${key}` }).token;
      tokens.set(key, t);
    }
    return t;
  };
  const instanceUrl = sandbox.instanceUrl('demo');
  const clock = opts.now ?? (() => Date.now());
  const loginForm = (name: string, o: LoginOptions): Record<string, string> => {
    const u = user(name);
    const form: Record<string, string> = { name, password: u.password, identifier: o.identifier ?? `test-${name}` };
    const app = o.application === undefined ? 'svc-cli' : o.application;
    const seeded = app === null ? undefined : creds.applications.find((a) => a.identifier === app);
    if (app !== null && !seeded) throw new Error(`no seeded application ${app}`);
    const secret = o.appsecret ?? seeded?.appsecret;
    if (secret !== undefined) form.appsecret = secret;
    const otp = o.otp ?? (u.otpsecret ? totp(decodeBase32(u.otpsecret), Math.floor(clock() / 1000)) : undefined);
    if (otp !== undefined) form.otp = otp;
    if (o.expdate !== undefined) form.expdate = String(o.expdate);
    return form;
  };
  const result: TestSandbox = {
    sandbox,
    instanceUrl,
    user,
    token,
    async login(name, o = {}) {
      const answer = await result.call('POST', 'auth/v1/login', { token: null, form: new URLSearchParams(loginForm(name, o)).toString() });
      if (answer.status !== 200) throw new Error(`login of ${name} failed: ${answer.status} ${answer.text}`);
      return answer.json<LoginToken>();
    },
    async call(method, path, o = {}) {
      const url = path.startsWith('/') ? `${sandbox.origin}${path}` : `${instanceUrl}/${path}`;
      const headers: Record<string, string> = { ...o.headers };
      const t = o.token === undefined ? token() : o.token;
      if (t) headers.authorization = `Bearer ${t}`;
      let body: string | undefined;
      if (o.json !== undefined) {
        body = JSON.stringify(o.json);
        headers['content-type'] = 'application/json';
      } else if (o.form !== undefined) {
        body = o.form;
        headers['content-type'] = 'application/x-www-form-urlencoded';
      }
      const res = await request(url, { method: method as 'GET', headers, body });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text, json: <T,>() => JSON.parse(text) as T };
    },
    close: () => sandbox.close(),
  };
  return result;
}

export interface TestSandboxOptions extends Partial<SandboxOptions> {
  /** Record every request in `sandbox.hooks.requests`, afresh for each test (default false). */
  record?: boolean;
  /**
   * 'file' (default): one sandbox for the test file, started before its first
   * test and closed after its last; 'test': a fresh one for each test, for tests
   * that change what others would see (sessions, secrets, the clock).
   */
  per?: 'file' | 'test';
}

/**
 * The running sandbox of a test file: call it for the TestSandbox, or use its
 * members directly (`s.call(…)`, `s.instanceUrl`), which read the running one.
 */
export type FileSandbox = (() => TestSandbox) & TestSandbox;

/**
 * The one way a test file gets a sandbox: its own in-memory instance (own
 * database, own tenant), so no file sees another's records. Started before the
 * tests (each test with `per: 'test'`), closed after; before each test its hooks
 * are reset and request recording set to `record`.
 */
export function useTestSandbox(opts: TestSandboxOptions = {}): FileSandbox {
  const { record = false, per = 'file', ...options } = opts;
  let s: TestSandbox | undefined;
  const start = async (): Promise<void> => {
    s = await startTestSandbox(options);
  };
  const stop = async (): Promise<void> => {
    await s?.close();
    s = undefined;
  };
  if (per === 'test') {
    beforeEach(start);
    afterEach(stop);
  } else {
    beforeAll(start);
    afterAll(stop);
  }
  beforeEach(() => {
    if (!s) return;
    s.sandbox.hooks.reset();
    s.sandbox.hooks.record = record;
  });
  const current = (): TestSandbox => {
    if (!s) throw new Error('the sandbox has not started (use it inside a test or hook)');
    return s;
  };
  const members: PropertyDescriptorMap = {
    sandbox: { get: () => current().sandbox },
    instanceUrl: { get: () => current().instanceUrl },
  };
  for (const m of ['user', 'token', 'login', 'call', 'close'] as const) {
    members[m] = { value: (...args: unknown[]) => (current()[m] as (...a: unknown[]) => unknown)(...args) };
  }
  return Object.defineProperties(current, members) as FileSandbox;
}

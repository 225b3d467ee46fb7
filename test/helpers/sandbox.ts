import { request } from 'undici';
import { issueToken } from '../../src/sandbox/auth/tokens.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import type { SeedUser } from '../../src/sandbox/seed/identities.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = unknown>(): T;
}

export interface TestSandbox {
  readonly sandbox: Sandbox;
  /** `http://127.0.0.1:PORT/demo` */
  readonly instanceUrl: string;
  /** The seeded user with this name (demo, reader, field, secure, staff). */
  user(name: string): SeedUser;
  /** An application-specific token for a user, issued the way login issues it. */
  token(user?: string, application?: string): string;
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
  return {
    sandbox,
    instanceUrl,
    user,
    token,
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
}

/**
 * `svc sandbox …` as a user runs it: spawned `node bin/svc.js` (it manages
 * processes), each test in its own temporary data dir. Needs `npm run build`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxProfileName } from '../../src/commands/sandbox/profile.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
const home = mkdtempSync(join(tmpdir(), 'svc-sandbox-home-'));
/** The config dir of every spawned svc unless a test gives its own: never the real one. */
const config = join(home, 'config');
const dirs: string[] = [];
const configs: string[] = [];
const children: ChildProcess[] = [];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Info {
  instanceUrl: string;
  user: string;
  password: string;
  appsecret: string;
  clientId: string;
  clientSecret: string;
  caFile?: string;
}

/** A fresh data dir, stopped again after all tests. */
function dataDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-sandbox-')), 'data');
  dirs.push(dir);
  return dir;
}

function launch(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: home, SVC_CONFIG_DIR: config, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs svc to its end. */
function svc(args: string[], env: Record<string, string> = {}): Promise<Result> {
  const child = launch(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Starts a sandbox as a script would and returns what it printed. */
async function start(dir: string, ...extra: string[]): Promise<Info> {
  return startWith({}, dir, ...extra);
}

/** start, with extra environment (SVC_CONFIG_DIR). */
async function startWith(env: Record<string, string>, dir: string, ...extra: string[]): Promise<Info> {
  const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json', ...extra], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Info;
}

/** A fresh config dir, removed after all tests. */
function configDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-sandbox-config-')), 'svc');
  configs.push(dir);
  return dir;
}

interface ShownProfile {
  name: string;
  url: string;
  current: boolean;
  caFile: string | null;
}

/** The profile a sandbox started with `--data-dir dir` registers (`sandbox` is the default data dir's). */
function profileOf(dir: string): string {
  return sandboxProfileName(dir, { HOME: home });
}

async function showProfile(env: Record<string, string>, name = 'sandbox'): Promise<ShownProfile> {
  const r = await svc(['profile', 'show', name, '-o', 'json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ShownProfile;
}

async function health(url: string, ca?: string): Promise<{ ok: boolean; instances: string[] }> {
  const dispatcher = ca ? new Agent({ connect: { ca } }) : undefined;
  const res = await request(`${new URL(url).origin}/_sandbox/health`, dispatcher ? { dispatcher } : {});
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as { ok: boolean; instances: string[] };
}

/** Whether a process runs (an exited, unreaped one does not count). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

async function status(dir: string): Promise<Result & { pid?: number }> {
  const r = await svc(['sandbox', 'status', '--data-dir', dir, '-o', 'json']);
  return r.code === 0 ? { ...r, pid: (JSON.parse(r.stdout) as { pid: number }).pid } : r;
}

const mode = (file: string): number => statSync(file).mode & 0o777;

describe('svc sandbox', () => {
  beforeAll(() => {
    expect(existsSync(join(root, 'dist', 'svc.cjs')), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(dirs.map((dir) => svc(['sandbox', 'stop', '--data-dir', dir])));
    for (const dir of [...dirs.map((d) => dirname(d)), ...configs.map((d) => dirname(d)), home]) rmSync(dir, { recursive: true, force: true });
  });

  it('starts in the background, prints its URL and credentials, and reports status', async () => {
    const dir = dataDir();
    const info = await start(dir);
    expect(Object.keys(info).sort()).toEqual(['appsecret', 'clientId', 'clientSecret', 'instanceUrl', 'password', 'user']);
    expect(info).toMatchObject({ clientId: 'svc-cli', clientSecret: info.appsecret });
    expect(info.instanceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/demo$/);
    expect(info).toMatchObject({ user: 'demo' });
    // It answers with the token its state file records, which tells it from any other process with its pid or port.
    const { token } = JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) as { token: string };
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(await health(info.instanceUrl)).toEqual({ ok: true, instances: ['demo'], token });

    const s = await status(dir);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ running: true, instanceUrl: info.instanceUrl, https: false, dataDir: dir });

    const again = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(info);
    expect(again.stderr).toContain(`a sandbox already runs from ${dir} at ${info.instanceUrl} (pid ${s.pid})`);
    expect((await status(dir)).pid).toBe(s.pid);
  });

  it('keeps its files private and secrets out of the log', async () => {
    const dir = dataDir();
    const info = await start(dir);
    expect(mode(dir)).toBe(0o700);
    for (const f of ['credentials.json', 'sandbox.json', 'sandbox.log', 'sandbox.sqlite']) expect(mode(join(dir, f)), f).toBe(0o600);
    const log = readFileSync(join(dir, 'sandbox.log'), 'utf8');
    expect(log).toContain(`sandbox listening at ${info.instanceUrl}`);
    expect(log).not.toContain(info.password);
    expect(log).not.toContain(info.appsecret);
  });

  it('stops: the process is gone, status exits 3, a second stop is fine', async () => {
    const dir = dataDir();
    const info = await start(dir);
    const { pid } = await status(dir);
    const stop = await svc(['sandbox', 'stop', '--data-dir', dir]);
    expect(stop).toEqual({ code: 0, stdout: '', stderr: `sandbox stopped (pid ${pid}, ${info.instanceUrl})\n` });
    expect(isRunning(pid ?? 0)).toBe(false);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
    expect(await status(dir)).toEqual({ code: 3, stdout: '', stderr: `svc: no sandbox runs from ${dir}; start one with 'svc sandbox start --data-dir ${dir}'\n` });
    const again = await svc(['sandbox', 'stop', '--data-dir', dir]);
    expect(again).toEqual({ code: 0, stdout: '', stderr: `no sandbox runs from ${dir}; nothing to stop\n` });
  });

  it('registers the profile sandbox for the default data dir, current when none is, and says how to sign in', async () => {
    const dir = dataDir();
    const env = { SVC_CONFIG_DIR: configDir(), SVC_SANDBOX_DIR: dir };
    const r = await svc(['sandbox', 'start', '--port', '0'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("\nprofile 'sandbox' points at it: svc login --profile sandbox --user demo\n");
    expect(r.stderr).not.toContain('export SVC_URL');
    const info = await startWith(env, dir);
    expect(await showProfile(env)).toMatchObject({ name: 'sandbox', url: info.instanceUrl, current: true, caFile: null });
    const file = readFileSync(join(env.SVC_CONFIG_DIR, 'config.json'), 'utf8');
    expect(file).not.toContain(info.password);
    expect(file).not.toContain(info.appsecret);
  });

  it('serves HTTPS with a CA file a client can trust', async () => {
    const dir = dataDir();
    const env = { SVC_CONFIG_DIR: configDir() };
    const info = await startWith(env, dir, '--https');
    expect(await showProfile(env, profileOf(dir))).toMatchObject({ url: info.instanceUrl, caFile: info.caFile });
    expect(info.instanceUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/demo$/);
    expect(info.caFile).toBe(join(dir, 'tls', 'ca.pem'));
    const ca = readFileSync(info.caFile ?? '', 'utf8');
    expect(ca).toContain('-----BEGIN CERTIFICATE-----');
    expect((await health(info.instanceUrl, ca)).ok).toBe(true);
    await expect(request(`${new URL(info.instanceUrl).origin}/_sandbox/health`)).rejects.toThrow();
  });

  it('resets: a new password, same URL, still running', async () => {
    const dir = dataDir();
    const env = { SVC_CONFIG_DIR: configDir() };
    const before = await startWith(env, dir);
    rmSync(join(env.SVC_CONFIG_DIR, 'config.json'));
    const r = await svc(['sandbox', 'reset', '--data-dir', dir, '--seed-accounts', '5', '-o', 'json'], env);
    expect(r.stderr).toContain(`profile '${profileOf(dir)}' points at it`);
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(r.stdout) as Info;
    expect(after.instanceUrl).toBe(before.instanceUrl);
    expect(after.password).not.toBe(before.password);
    expect(after.appsecret).not.toBe(before.appsecret);
    expect(await showProfile(env, profileOf(dir))).toMatchObject({ url: after.instanceUrl, current: true });
    expect((await status(dir)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).demo.users[0].password).toBe(after.password);
  });

  it('resets a stopped sandbox: new credentials, still stopped', async () => {
    const dir = dataDir();
    const before = await start(dir);
    await svc(['sandbox', 'stop', '--data-dir', dir]);
    const r = await svc(['sandbox', 'reset', '--data-dir', dir, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const after = JSON.parse(r.stdout) as Info;
    expect(Object.keys(after).sort()).toEqual(['appsecret', 'clientId', 'clientSecret', 'password', 'user']);
    expect(after.password).not.toBe(before.password);
    expect(r.stderr).toBe(`sandbox data in ${dir} wiped and seeded again; it is not running: start it with 'svc sandbox start --data-dir ${dir}'\n`);
    expect((await status(dir)).code).toBe(3);
  });

  it('runs in the foreground and stops cleanly on SIGTERM', async () => {
    const dir = dataDir();
    const child = launch(['sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dir]);
    children.push(child);
    let stdout = '';
    let stderr = '';
    // The JSON object on stdout says the sandbox listens: wait for it (or for the child to end).
    const listening = new Promise<void>((resolve) => {
      child.stdout?.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('}')) resolve();
      });
      child.once('close', () => resolve());
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await listening;
    const info = JSON.parse(stdout) as Info;
    await health(info.instanceUrl);
    await request(`${info.instanceUrl}/api/v1/accounts?password=hunter2`).then((res) => res.body.dump());
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
    expect(stderr).toMatch(/^GET \/demo\/api\/v1\/accounts\?password=\[redacted\] \d{3} \d+ms$/m);
    expect(stderr).not.toContain('hunter2');
    expect(stderr).toContain(`profile '${profileOf(dir)}' points at it: svc login --profile ${profileOf(dir)} --user demo\n`);
    expect(stderr).toMatch(/sandbox stopping \(SIGTERM\)\nsandbox stopped\n$/);
  });

  it('passes --oauth-access-ttl to the detached sandbox, keeps it over a reset, and says how to sign in with a browser', async () => {
    const dir = dataDir();
    const human = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '--oauth-access-ttl', '90s', '-o', 'table']);
    expect(human.code, human.stderr).toBe(0);
    const info = await start(dir);
    const line = human.stdout.split('\n').find((l) => l.includes('svc login --web')) ?? '';
    expect(line.replace(/^browser sign-in: +/, '').replace(/--profile sandbox-\S+ /, '--profile P ')).toBe(`SVC_CLIENT_SECRET=${info.clientSecret} svc login --web --profile P --client-id svc-cli`);
    const grant = async (i: Info): Promise<{ expires_in: number }> => {
      const res = await request(`${i.instanceUrl}/oauth2/v1/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${i.clientId}:${i.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: i.user, password: i.password }).toString(),
      });
      expect(res.statusCode).toBe(200);
      return (await res.body.json()) as { expires_in: number };
    };
    expect((await grant(info)).expires_in).toBe(90);
    const reset = await svc(['sandbox', 'reset', '--data-dir', dir, '-o', 'json']);
    expect(reset.code, reset.stderr).toBe(0);
    expect((await grant(JSON.parse(reset.stdout) as Info)).expires_in).toBe(90);
  });

  it('rejects a nonsensical --oauth-access-ttl with one line and exit 2', async () => {
    const bad = await svc(['sandbox', 'start', '--oauth-access-ttl', 'soon']);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: "svc: invalid --oauth-access-ttl 'soon'; use a number with ms, s, m, h, d or w, e.g. 30s, 1m30s or 30d\n" });
  });

  it('fails with one line naming a port in use and the fix', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const dir = dataDir();
    try {
      const r = await svc(['sandbox', 'start', '--port', String(port), '--data-dir', dir]);
      expect(r).toEqual({ code: 1, stdout: '', stderr: `svc: port ${port} is in use; stop what uses it or start with --port 0 to pick a free port\n` });
      expect(existsSync(join(dir, 'sandbox.json'))).toBe(false);
    } finally {
      server.close();
    }
  });

  it('rejects a bad port and finds its data dir from the environment', async () => {
    const bad = await svc(['sandbox', 'start', '--port', '70000']);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: "svc: invalid port '70000'; give a number from 1 to 65535, or 0 for a free port\n" });
    const dir = dataDir();
    const byEnv = await svc(['sandbox', 'status'], { SVC_SANDBOX_DIR: dir });
    expect(byEnv.stderr).toBe(`svc: no sandbox runs from ${dir}; start one with 'svc sandbox start'\n`);
    const byXdg = await svc(['sandbox', 'status'], { XDG_DATA_HOME: '/tmp/svc-xdg' });
    expect(byXdg.stderr).toContain("no sandbox runs from /tmp/svc-xdg/svc/sandbox;");
    const byHome = await svc(['sandbox', 'status']);
    expect(byHome.stderr).toContain(`no sandbox runs from ${join(home, '.local', 'share', 'svc', 'sandbox')};`);
  });
});

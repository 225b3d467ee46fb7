/**
 * s8-life: `svc sandbox` against what a data dir can be, driven as a user
 * runs it (spawned `node bin/svc.js`, each test in a data dir of its own,
 * HOME a temporary directory so the default data dir is never the user's):
 *
 * - `--data-dir` a regular file, below a file, or where nothing may be made;
 * - `--data-dir ''` (an unset variable in a script);
 * - a damaged `sandbox.sqlite` (garbage, cut in half) or `credentials.json`
 *   (cut short, emptied);
 * - a sandbox killed (SIGKILL) while it seeds its first tenant, then started
 *   again; and (HELD) one killed amid writes, then started again.
 *
 * Each must end in one line naming the file or dir and the fix, with the
 * documented exit code (README "Local sandbox": start/reset 1 when the
 * sandbox cannot start, the message naming the log file or the port; stop 0
 * also when nothing ran), never "unexpected error" (svc's words for its own
 * bug), never a sandbox left running by a start that says it failed.
 *
 * Tests marked HELD pass today; the others fail until svc is fixed.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning, killSandboxesOf, sandboxHarness, sandboxProcessesOf, type SvcResult } from './s8-sandbox-support.js';
import { root } from './s7-support.js';

const h = sandboxHarness('s8-life-data-home-', 's8-life-data-');
const { home, dirs, dataDir, env } = h;
const defaultDataDir = join(home, '.local', 'share', 'svc', 'sandbox');

type Result = SvcResult;

/** A temporary directory of this file's own, removed after its tests. */
function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(join(dir, 'data'));
  return dir;
}

const svc = (args: string[], opts: { killMs?: number } = {}): Promise<Result> => h.svc(args, opts);

/** One stderr line, `svc: …`, that is not svc's "unexpected error". */
function expectOneLine(r: Result): string {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^svc: /);
  expect(lines[0], 'a damaged or unusable data dir is not a bug in svc').not.toContain('unexpected error');
  return lines[0] ?? '';
}

/** A data dir seeded by a real start and stopped again. */
async function seededDataDir(): Promise<string> {
  const dir = dataDir();
  const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const s = await svc(['sandbox', 'stop', '--data-dir', dir]);
  expect(s.code, s.stderr).toBe(0);
  return dir;
}

afterAll(async () => {
  killSandboxesOf([...dirs, defaultDataDir]);
  h.cleanUp();
});

describe('--data-dir that cannot be a data dir', () => {
  it('a regular file: start and reset say so in one line naming it (not "unexpected error: EEXIST"), stop is exit 0 (nothing runs there)', async () => {
    const file = join(scratch('s8-life-file-'), 'notes.txt');
    writeFileSync(file, 'my notes\n');
    const start = await svc(['sandbox', 'start', '--port', '0', '--data-dir', file]);
    expect(start.code).toBe(1);
    expect(expectOneLine(start)).toContain(file);
    const reset = await svc(['sandbox', 'reset', '--data-dir', file]);
    expect(reset.code).toBe(1);
    expect(expectOneLine(reset)).toContain(file);
    // README: "stop 0 also when nothing ran". Today: exit 1, "unexpected error: ENOTDIR … lstat '<file>/sandbox.json'".
    const stop = await svc(['sandbox', 'stop', '--data-dir', file]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).not.toContain('unexpected error');
    expect(readFileSync(file, 'utf8')).toBe('my notes\n');
  });

  it('a path below a regular file, and a path where nothing may be made: one line naming the data dir', async () => {
    const file = join(scratch('s8-life-file-'), 'notes.txt');
    writeFileSync(file, 'x');
    // Where nothing may be made: /sys refuses mkdir even to root; for another user a 0500 directory does.
    let forbidden = '/sys/s8-life-data';
    if (process.getuid?.() !== 0) {
      const parent = scratch('s8-life-ro-');
      chmodSync(parent, 0o500);
      forbidden = join(parent, 'data');
    }
    for (const dir of [join(file, 'data'), forbidden]) {
      const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir]);
      expect(r.code).toBe(1);
      expect(expectOneLine(r)).toContain(dir);
    }
  });

  it('a path under /proc (where mkdir answers ENOENT for ever): one line within seconds, not a CPU-bound hang that ignores SIGTERM', async () => {
    // Node's recursive mkdirSync loops for ever on such a path; svc makes the data dir with it, before anything else.
    const t0 = Date.now();
    const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', '/proc/s8-life-data'], { killMs: 8_000 });
    expect(Date.now() - t0, 'svc sandbox start hung (killed after 8 s)').toBeLessThan(8_000);
    expect(r.code).toBe(1);
    expect(expectOneLine(r)).toContain('/proc/s8-life-data');
  });

  it("an empty --data-dir '' (an unset variable) is exit 2, as every empty option value is: reset does not wipe the default sandbox", async () => {
    // The default data dir holds a tenant of the user's.
    const seeded = await svc(['sandbox', 'start', '--port', '0', '-o', 'json']);
    expect(seeded.code, seeded.stderr).toBe(0);
    const before = (JSON.parse(seeded.stdout) as { password: string }).password;
    try {
      const reset = await svc(['sandbox', 'reset', '--data-dir', '', '-o', 'json']);
      const after = (JSON.parse(readFileSync(join(defaultDataDir, 'credentials.json'), 'utf8')) as { demo: { users: { name: string; password: string }[] } }).demo.users.find((u) => u.name === 'demo')?.password;
      expect(after, "svc sandbox reset --data-dir '' wiped the default sandbox").toBe(before);
      expect(reset.code).toBe(2);
      expect(expectOneLine(reset)).toMatch(/--data-dir/);
      const stop = await svc(['sandbox', 'stop', '--data-dir', '']);
      expect(stop.code).toBe(2);
      expect((await svc(['sandbox', 'status'])).code, 'the default sandbox was stopped by --data-dir ""').toBe(0);
    } finally {
      await svc(['sandbox', 'stop']);
    }
  });
});

describe('a damaged database or credentials file', () => {
  it.each([
    ['garbage in place of sandbox.sqlite', (dir: string) => writeFileSync(join(dir, 'sandbox.sqlite'), 'this is not a database\n'.repeat(100))],
    ['sandbox.sqlite cut in half', (dir: string) => truncateSync(join(dir, 'sandbox.sqlite'), Math.floor(statSync(join(dir, 'sandbox.sqlite')).size / 2))],
  ])('%s: start is exit 1 in one line naming the database and the fix for this data dir (not "unexpected error: …")', async (_what, damage) => {
    const dir = await seededDataDir();
    damage(dir);
    const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir]);
    expect(r.code).toBe(1);
    const line = expectOneLine(r);
    expect(line).toContain(join(dir, 'sandbox.sqlite'));
    expect(line).toContain(`svc sandbox reset --data-dir ${dir}`);
    expect(sandboxProcessesOf(dir)).toEqual([]);
  });

  it('HELD: after a damaged database, svc sandbox reset --data-dir DIR seeds it afresh and start works', async () => {
    const dir = await seededDataDir();
    truncateSync(join(dir, 'sandbox.sqlite'), 4096);
    const reset = await svc(['sandbox', 'reset', '--data-dir', dir, '-o', 'json']);
    expect(reset.code, reset.stderr).toBe(0);
    const start = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json']);
    expect(start.code, start.stderr).toBe(0);
    expect((JSON.parse(start.stdout) as { password: string }).password).toBe((JSON.parse(reset.stdout) as { password: string }).password);
    await svc(['sandbox', 'stop', '--data-dir', dir]);
  });

  it('credentials.json cut short: start is exit 1 in one line naming the file and the fix for this data dir', async () => {
    const dir = await seededDataDir();
    const file = join(dir, 'credentials.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 40));
    const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir]);
    expect(r.code).toBe(1);
    const line = expectOneLine(r);
    expect(line).toContain(file);
    expect(line).toContain(`svc sandbox reset --data-dir ${dir}`);
  });

  it("credentials.json emptied ({}): a start that fails leaves no sandbox running, and its fix names this data dir (plain 'svc sandbox reset' wipes the default one)", async () => {
    const dir = await seededDataDir();
    writeFileSync(join(dir, 'credentials.json'), '{}\n');
    const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir]);
    const running = sandboxProcessesOf(dir);
    await svc(['sandbox', 'stop', '--data-dir', dir]);
    expect(r.stderr).not.toMatch(/run 'svc sandbox reset'/);
    if (r.code !== 0) expect(running, `start exited ${r.code} but left the sandbox running: ${r.stderr}`).toEqual([]);
  });
});

describe('a sandbox killed (SIGKILL) while it seeds its first tenant', () => {
  it('started again, it seeds the tenant and prints its credentials (not an empty tenant, "no credentials", exit 1 with the sandbox left running)', async () => {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dir, '--seed-accounts', '300000'], {
      cwd: root,
      env: env(),
      stdio: 'ignore',
    });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    // Seeding is under way once its write-ahead log has grown past a few MB.
    const wal = join(dir, 'sandbox.sqlite-wal');
    while (!(existsSync(wal) && statSync(wal).size > 5_000_000)) {
      expect(child.exitCode, 'the sandbox ended before it seeded').toBeNull();
      await new Promise((r) => setImmediate(r));
    }
    child.kill('SIGKILL');
    await exited;

    const r = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '--seed-accounts', '50', '-o', 'json']);
    const running = sandboxProcessesOf(dir);
    try {
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ user: 'demo', password: expect.any(String) });
    } finally {
      await svc(['sandbox', 'stop', '--data-dir', dir]);
    }
    expect(running).toHaveLength(1);
  }, 40_000);
});

describe('HELD: a sandbox killed (SIGKILL) amid writes', () => {
  it('status says it does not run (exit 3), start takes the data dir over, and every create it acknowledged is there; the database passes integrity_check', async () => {
    const dir = dataDir();
    const started = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json']);
    expect(started.code, started.stderr).toBe(0);
    const info = JSON.parse(started.stdout) as { instanceUrl: string; password: string; appsecret: string };
    const pid = (JSON.parse(readFileSync(join(dir, 'sandbox.json'), 'utf8')) as { pid: number }).pid;
    const basic = `Basic ${Buffer.from(`svc-cli:${info.appsecret}`).toString('base64')}`;
    const tokenRes = await fetch(`${info.instanceUrl}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: 'demo', password: info.password }).toString(),
    });
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const acknowledged: number[] = [];
    let killed = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await fetch(`${info.instanceUrl}/api/v1/accounts`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ lastname: `s8-kill-${w}-${i}`, currency: 'EUR' }),
          });
          const body = (await res.json()) as { ID?: number };
          if (res.status === 201 && body.ID) acknowledged.push(body.ID);
          if (acknowledged.length >= 40 && !killed) {
            killed = true;
            process.kill(pid, 'SIGKILL');
          }
        } catch {
          return;
        }
      }
    };
    await Promise.all([1, 2, 3, 4].map(writer));
    while (isRunning(pid)) await new Promise((r) => setImmediate(r));

    const status = await svc(['sandbox', 'status', '--data-dir', dir]);
    expect(status.code).toBe(3);
    const again = await svc(['sandbox', 'start', '--port', '0', '--data-dir', dir, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    const url = (JSON.parse(again.stdout) as { instanceUrl: string }).instanceUrl;
    const tokenAgain = (await (
      await fetch(`${url}/oauth2/v1/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: 'demo', password: info.password }).toString(),
      })
    ).json()) as { access_token: string };
    const missing: number[] = [];
    for (const id of acknowledged) {
      const res = await fetch(`${url}/api/v1/accounts/${id}`, { headers: { authorization: `Bearer ${tokenAgain.access_token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) missing.push(id);
    }
    await svc(['sandbox', 'stop', '--data-dir', dir]);
    expect(missing).toEqual([]);
    const db = new Database(join(dir, 'sandbox.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  }, 40_000);
});

describe('HELD: hostile flag values', () => {
  it.each([
    ['--faults', '1.5'],
    ['--faults', '-0.1'],
    ['--faults', '1e-1'],
    ['--faults', 'NaN'],
    ['--faults', ''],
    ['--seed-accounts', '0'],
    ['--seed-accounts', '1e6'],
    ['--seed-accounts', '99999999999999999999'],
    ['--port', '-1'],
    ['--port', ' 80'],
    ['--port', '65536'],
    ['--oauth-access-ttl', '0s'],
    ['--oauth-access-ttl', '101d'],
    ['--oauth-access-ttl', '1e3s'],
  ])('start %s %j: exit 2 in one line, nothing started or made', async (flag, value) => {
    const dir = join(scratch('s8-life-flags-'), 'data');
    const r = await svc(['sandbox', 'start', flag, value, '--data-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLine(r);
    expect(existsSync(dir)).toBe(false);
  });
});

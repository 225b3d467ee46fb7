/**
 * Where an export may write, and how it fails: symbolic links stay links,
 * devices and FIFOs are written straight through, a missing directory and a
 * full disk are named, a second export to the same file refuses at once, and
 * a redirect is reported, never followed. Spawned tests need `npm run build`.
 */
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { onRequest, sha256File, tempDir, useReferenceExport } from '../export/support.js';

const { sandbox, run, reference: referenceFile } = useReferenceExport(600);

/**
 * A character device of the test's own (mknod, as root) standing in for
 * /dev/null or /dev/full, so an svc that wrongly replaced what --output names
 * could only ever replace that copy, never the machine's. Without the right
 * to make one, the real device (which such an svc could not replace then).
 */
function device(name: 'null' | 'full', ctx: { skip(note?: string): void }): string {
  const path = join(tempDir(), name);
  const made = spawnSync('mknod', ['-m', '666', path, 'c', '1', name === 'null' ? '3' : '7']);
  if (made.status === 0) return path;
  // Not as root: svc could not replace the real device either. As root without the right to mknod: skip, never risk it.
  if (process.getuid?.() !== 0) return `/dev/${name}`;
  ctx.skip(`cannot make a private /dev/${name} here (mknod: ${made.stderr.toString().trim()}); the real one is not put at risk`);
  return '';
}

/** A link of the test's own to this process's standard output, like /dev/stdout (which it stands in for, for the same reason). */
function stdoutLink(): string {
  const path = join(tempDir(), 'stdout');
  symlinkSync('/proc/self/fd/1', path);
  return path;
}

/** The environment a spawned svc signs in with. */
function childEnv(): NodeJS.ProcessEnv {
  const s = sandbox();
  return { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
}

/** Children still running when a test ends (it failed or timed out): killed, never left behind. */
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

/** Starts the built svc, tracked so that it is killed when the test ends. */
function svcChild(args: string[], stdio: StdioOptions): ChildProcess {
  const child = spawn(process.execPath, ['bin/svc.js', ...args], { env: childEnv(), stdio });
  children.add(child);
  child.on('close', () => children.delete(child));
  return child;
}

/** Runs the built svc to its end with these stdio descriptors for stdout. */
async function spawned(args: string[], stdout: 'pipe' | number = 'pipe'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = svcChild(args, ['ignore', stdout, 'pipe']);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  return { code, stdout: out, stderr: err };
}

describe('svc <family> export --output: what the name points at', () => {
  it('keeps a symbolic link a link and gives its target the export, atomically', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'data'));
    const link = join(dir, 'latest.csv');
    symlinkSync('data/2026-11-23.csv', link);
    const r = await run(['accounts', 'export', '--format', 'csv', '--output-file', link, '--manifest']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('data/2026-11-23.csv');
    expect(sha256File(join(dir, 'data/2026-11-23.csv'))).toBe(sha256File(referenceFile()));
    expect(existsSync(join(dir, 'data/2026-11-23.csv.svc-partial'))).toBe(false);
    expect(JSON.parse(readFileSync(`${link}.manifest.json`, 'utf8'))).toMatchObject({ file: link, sha256: sha256File(referenceFile()) });
  });

  it('writes /dev/null straight through and leaves it a device', async (ctx) => {
    const devNull = device('null', ctx);
    const r = await run(['accounts', 'export', '--format', 'csv', '--output-file', devNull]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(lstatSync(devNull).isCharacterDevice()).toBe(true);
    expect(existsSync(`${devNull}.svc-partial`)).toBe(false);
  });

  it('writes through /dev/stdout to whatever standard output is (here a socket, which cannot be reopened)', async () => {
    const link = stdoutLink();
    const r = await spawned(['accounts', 'export', '--format', 'csv', '--output', link]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(referenceFile(), 'utf8'));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('writes a FIFO straight through to its reader, and stops on SIGINT while no reader has come', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'feed');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const exporting = spawned(['accounts', 'export', '--format', 'csv', '--output', fifo]);
    const read = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
      reader.stdout.on('data', (c: Buffer) => chunks.push(c));
      reader.on('error', reject);
      reader.on('close', () => resolve(Buffer.concat(chunks)));
    });
    expect((await exporting).code).toBe(0);
    expect(read.toString()).toBe(readFileSync(referenceFile(), 'utf8'));
    expect(lstatSync(fifo).isFIFO()).toBe(true);

    const waiting = svcChild(['accounts', 'export', '--format', 'csv', '--output', fifo], ['ignore', 'ignore', 'pipe']);
    let stderr = '';
    waiting.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (stderr.includes('waiting for a reader')) waiting.kill('SIGINT');
    });
    const code = await new Promise<number | null>((r) => waiting.on('close', (c) => r(c)));
    expect(code).toBe(130);
    expect(stderr).toBe(`svc: waiting for a reader of ${fifo} (a FIFO)\nsvc: interrupted by SIGINT\n`);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  }, 30_000);

  it('refuses --resume and --manifest on a device, before anything is sent', async (ctx) => {
    const devNull = device('null', ctx);
    const resume = await run(['accounts', 'export', '--format', 'csv', '--output', devNull, '--resume']);
    expect(resume).toEqual({ code: 2, stdout: '', stderr: `svc: --resume needs a regular file; ${devNull} is a character device, which svc writes straight through\n` });
    const manifest = await run(['accounts', 'export', '--format', 'csv', '--output', devNull, '--manifest']);
    expect(manifest.code).toBe(2);
    expect(manifest.stderr).toContain('--manifest needs a regular file');
  });

  it('names a missing directory, and a directory given as the file (exit 2, nothing sent)', async () => {
    const s = sandbox();
    const missing = await run(['accounts', 'export', '--format', 'csv', '--output', '/no/such/dir/f.csv']);
    expect(missing).toMatchObject({ code: 2, stderr: 'svc: --output /no/such/dir/f.csv: the directory /no/such/dir does not exist; create it or choose another file\n' });
    const dir = tempDir();
    const isDir = await run(['accounts', 'export', '--format', 'csv', '--output-file', dir]);
    expect(isDir.code).toBe(2);
    expect(isDir.stderr).toContain(`--output ${dir} is a directory`);
    expect(s.sandbox.hooks.requests).toEqual([]);
  });

  it('fails in words when the disk behind standard output is full (exit 1)', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = await spawned(['accounts', 'export', '--format', 'csv'], full);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('svc: cannot write to standard output: no space left on device (ENOSPC); free some space or write elsewhere\n');
      const one = await spawned(['accounts', 'get', '1', '-o', 'json'], full);
      expect(one.code).toBe(1);
      expect(one.stderr).toContain('cannot write to standard output: no space left on device (ENOSPC)');
    } finally {
      closeSync(full);
    }
  }, 30_000);

  it('fails in words when /dev/full is the output, and leaves it a device', async (ctx) => {
    const devFull = device('full', ctx);
    const r = await run(['accounts', 'export', '--format', 'csv', '--output', devFull]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`svc: cannot write to ${devFull}: no space left on device (ENOSPC); free some space or write elsewhere\n`);
    expect(lstatSync(devFull).isCharacterDevice()).toBe(true);
  });
});

describe('svc <family> export: one export per file at a time', () => {
  it('refuses a second export to the same file at once, naming the running one, which then finishes intact', async () => {
    const s = sandbox();
    const file = join(tempDir(), 'nightly.csv');
    s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { delayMs: 50 }, times: 1000 });
    const first = svcChild(['accounts', 'export', '--format', 'csv', '--page-size', '50', '--output-file', file], 'ignore');
    const firstDone = new Promise<number | null>((r) => first.on('close', (c) => r(c)));
    // The first export holds its lock before its first request.
    let second: Promise<Awaited<ReturnType<typeof run>>> | undefined;
    await new Promise<void>((resolve) => {
      const stop = onRequest(s, '/api/v1/accounts', () => {
        stop();
        second = run(['accounts', 'export', '--format', 'csv', '--output-file', file]);
        resolve();
      });
    });
    const r = await second;
    expect(r?.code).toBe(1);
    expect(r?.stderr).toMatch(new RegExp(`^svc: another export to ${file} is running \\(pid ${first.pid} \\('svc accounts export .*', since .*\\); lock ${file}\\.svc-lock\\); wait for it to end`));
    expect(await firstDone).toBe(0);
    s.sandbox.hooks.reset();
    expect(sha256File(file)).toBe(sha256File(referenceFile()));
    expect(existsSync(`${file}.svc-lock`)).toBe(false);
  }, 60_000);

  it("takes over a lock left by a dead export at once, and resumes its work", async () => {
    const file = join(tempDir(), 'nightly.csv');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(`${file}.svc-lock`, JSON.stringify({ pid: dead, host: hostname(), since: '2026-11-23T00:00:00.000Z', what: 'svc accounts export' }));
    const r = await run(['accounts', 'export', '--format', 'csv', '--output-file', file, '--resume']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(sha256File(file)).toBe(sha256File(referenceFile()));
    expect(existsSync(`${file}.svc-lock`)).toBe(false);
  });

  it('never takes over a lock from another host, or one it cannot read; it names the file', async () => {
    const file = join(tempDir(), 'nightly.csv');
    writeFileSync(`${file}.svc-lock`, JSON.stringify({ pid: 4242, host: 'batch-7', since: '2026-11-23T00:00:00.000Z', what: 'svc accounts export' }));
    const other = await run(['accounts', 'export', '--format', 'csv', '--output-file', file]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`(pid 4242 on batch-7 ('svc accounts export', since 2026-11-23T00:00:00.000Z); lock ${file}.svc-lock)`);
    writeFileSync(`${file}.svc-lock`, '{"__proto__": {"pid": 1}, "garbage');
    const garbled = await run(['accounts', 'export', '--format', 'csv', '--output-file', file]);
    expect(garbled.code).toBe(1);
    expect(garbled.stderr).toContain(`(another process; the lock file does not say which: remove it if no export is running; lock ${file}.svc-lock)`);
    expect(existsSync(file)).toBe(false);
  });
});

describe('a redirect from the service', () => {
  let elsewhere: Server;
  let hits = 0;
  let port = 0;
  beforeAll(async () => {
    elsewhere = createServer((_req, res) => {
      hits++;
      res.end('[]');
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', () => r()));
    port = (elsewhere.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => elsewhere.close(() => r())));

  it.each([307, 308])('%i: says the service redirected and where, and never follows it with the token', async (status) => {
    const s = sandbox();
    const location = `http://user:pass@127.0.0.1:${port}/other/api/v1/accounts?token=abc&api_key=def#access_token=ghi`;
    s.sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status, headers: { Location: location } } });
    const r = await run(['accounts', 'export', '--format', 'csv']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`was redirected (${status}) to http://127.0.0.1:${port}/other/api/v1/accounts (its query and fragment not shown); svc does not follow redirects`);
    for (const secret of ['user', 'pass', 'abc', 'def', 'ghi']) expect(r.stderr).not.toContain(secret);
    expect(hits).toBe(0);
  });

  it('never prints a Location that is not a URL', async () => {
    sandbox().sandbox.hooks.failNext({ path: '/api/v1/accounts', fault: { status: 302, headers: { Location: 'http://[bad?token=LEAKME' } } });
    const r = await run(['accounts', 'count']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('was redirected (302) to an address that is not a valid URL');
    expect(r.stderr).not.toContain('LEAKME');
  });
});

describe('--timeout', () => {
  it('refuses a duration no timer can hold (exit 2) instead of firing at once', async () => {
    const r = await run(['accounts', 'count', '--timeout', '99999999d']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: "svc: --timeout '99999999d' is too long; use at most 24d20h\n" });
    const long = await run(['accounts', 'count', '--timeout', '24d', '-o', 'json']);
    expect(long.code).toBe(0);
  });
});

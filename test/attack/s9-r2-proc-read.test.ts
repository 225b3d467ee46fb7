/**
 * s9-r2 attack on the bounded reader (src/util/read-bounded.ts, read-input.ts)
 * that --filter-file, --data-file, `svc api --input` and `-F key=@FILE` now
 * share, and on standard input and `import --from`, its neighbours: the built
 * svc (`node bin/svc.js`) spawned with FIFOs, process substitution, devices,
 * sockets, huge and growing files, and a standard input it cannot read.
 * Moments are events: a thread of svc blocked where the kernel says
 * (/proc/PID/task/TID/wchan), a line on stderr, a byte written.
 *
 * Tests marked HELD pass today (claims that held); the others fail now and
 * pass once the fault is fixed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../watch/support.js';

const { sandbox } = sandboxCli();
const canSee = existsSync('/proc/self/task') && existsSync('/proc/self/wchan');
const hasMkfifo = spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).status === 0;
const hasBash = spawnSync('bash', ['-c', 'true'], { stdio: 'ignore' }).status === 0;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface Child {
  readonly child: ChildProcess;
  stderr(): string;
  until(test: () => boolean): Promise<void>;
  readonly ended: Promise<Ended>;
  /** Whether it ended within `ms` (otherwise it is killed, and this says false). */
  endsWithin(ms: number): Promise<boolean>;
}

const envOf = (s: TestSandbox): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '', HOME: tempConfigDir(), SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' });

/** Spawns `argv` (default: the built svc with `args`); stdin as given (default ignored). */
function start(s: TestSandbox, args: readonly string[], opts: { argv?: readonly string[]; stdin?: number | 'ignore' } = {}): Child {
  const argv = opts.argv ?? [process.execPath, 'bin/svc.js', ...args];
  const child = spawn(argv[0] as string, argv.slice(1), { env: envOf(s), stdio: [opts.stdin ?? 'ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let done = false;
  const listeners = new Set<() => void>();
  const poke = (): void => {
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    poke();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    poke();
  });
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      done = true;
      poke();
      resolve({ code, signal, stdout: out, stderr: err });
    }),
  );
  return {
    child,
    stderr: () => err,
    ended,
    until: (test) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!done && !test()) return;
          listeners.delete(check);
          clearInterval(poll);
          resolve();
        };
        // Tests on /proc change without output: checked every 20 ms as well.
        const poll = setInterval(check, 20);
        listeners.add(check);
        check();
      }),
    endsWithin: (ms) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve(false);
        }, ms);
        void ended.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      }),
  };
}

/** Whether a thread of `pid` waits in the kernel at `where` (wchan: `wait_for_partner` is the open of a FIFO without its other end). */
function threadWaitsIn(pid: number | undefined, where: string): boolean {
  if (pid === undefined) return false;
  try {
    return readdirSync(`/proc/${pid}/task`).some((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim() === where;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Whether process `pid` has `path` open. */
function holdsOpen(pid: number | undefined, path: string): boolean {
  if (pid === undefined) return false;
  try {
    const real = realpathSync(path);
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === real;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

function mkfifo(path: string): string {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr.toString()}`);
  return path;
}

const oneLine = (text: string): boolean => text.trim() !== '' && !text.trim().includes('\n');

describe.skipIf(!hasMkfifo || !canSee)('s9-r2: import --from a FIFO nobody writes to yet, and SIGTERM (the neighbour of --filter-file, which the fix made non-blocking)', () => {
  it('SIGTERM while svc waits for a writer ends it at once with exit 130, rather than printing "interrupted by SIGTERM" and staying until a writer comes', async () => {
    const s = sandbox();
    const fifo = mkfifo(join(tempDir(), 'rows.csv'));
    const c = start(s, ['accounts', 'import', '--from', fifo]);
    // The moment: a thread of svc is in the kernel's open of the FIFO, waiting for a writer; or (the fix: opened
    // without waiting) svc holds the FIFO open.
    await c.until(() => threadWaitsIn(c.child.pid, 'wait_for_partner') || holdsOpen(c.child.pid, fifo));
    c.child.kill('SIGTERM');
    await c.until(() => c.stderr().includes('interrupted by SIGTERM'));
    const ended = await c.endsWithin(5000);
    // Today: the message comes, but process.exit() waits for the libuv thread blocked in open(2), until a writer
    // opens the FIFO (a cron job or a supervisor's stop hangs until SIGKILL).
    expect({ ended, stderr: c.stderr() }).toEqual({ ended: true, stderr: 'svc: interrupted by SIGTERM\n' });
    expect((await c.ended).code).toBe(130);
  }, 20_000);
});

describe('s9-r2: a standard input svc cannot read (descriptor 0 open for writing only: `svc … 0>file`, or one a parent left so)', () => {
  it.each([
    ['count --filter-file -', ['accounts', 'count', '--filter-file', '-']],
    ['create --data-file -', ['accounts', 'create', '--data-file', '-']],
    ['import --from -', ['accounts', 'import', '--from', '-']],
    ['api --input -', ['api', 'accounts', '-X', 'POST', '--input', '-']],
  ] as const)('%s: one line naming standard input, exit 2, nothing sent; never Node\'s "Unhandled \'error\' event" stack trace', async (_name, args) => {
    const s = sandbox();
    const file = join(tempDir(), 'write-only');
    writeFileSync(file, '');
    const fd = openSync(file, 'w');
    try {
      const c = start(s, args, { stdin: fd });
      const end = await c.ended;
      const sent = s.sandbox.hooks.requests.filter((r) => r.method !== 'GET').length;
      // Today: exit 1 and a 15-line stack trace ("Error: EBADF: bad file descriptor, read … Emitted 'error' event
      // on ReadStream"): main.ts's chunksOf listens for 'data' and 'end' only.
      expect(end.stderr, end.stderr).not.toMatch(/Unhandled|node:events|at .*\(node:/);
      expect(oneLine(end.stderr), end.stderr).toBe(true);
      expect(end.stderr).toMatch(/standard input|stdin/);
      expect(end.code).toBe(2);
      expect(sent).toBe(0);
    } finally {
      closeSync(fd);
    }
  }, 20_000);
});

describe.skipIf(!hasBash)('s9-r2: a pipe whose writer ends without writing (`--filter-file <(jq … )` when jq fails, `<(true)`)', () => {
  it.each([
    ['--filter-file', ['accounts', 'count', '--filter-file']],
    ['--data-file', ['accounts', 'create', '--data-file']],
  ] as const)('%s <(true): no "waiting for a writer" notice (nothing is waited for: the writer came and went), one line saying the input is empty, exit 2', async (_name, args) => {
    const s = sandbox();
    const line = `exec ${process.execPath} bin/svc.js ${args.map((a) => `'${a}'`).join(' ')} <(true)`;
    // The writer (true) has ended before svc reads: wait for it by running it first inside the substitution.
    const c = start(s, [], { argv: ['bash', '-c', line] });
    const end = await c.ended;
    // Today: "svc: waiting for a writer to --filter-file /dev/fd/63 (a FIFO)" and then
    // "svc: --filter-file /dev/fd/63 is not valid JSON: Unexpected end of JSON input": the notice is printed
    // whenever the first read gives 0 bytes, which is also a pipe whose writer has already closed it.
    expect(end.stderr, end.stderr).not.toMatch(/waiting for a writer/);
    expect(oneLine(end.stderr), end.stderr).toBe(true);
    expect(end.code).toBe(2);
  }, 20_000);

  it.skipIf(!hasMkfifo)('HELD: a named FIFO whose writer opens and closes it without writing: the notice (a writer was awaited), then exit 2 at once', async () => {
    const s = sandbox();
    const fifo = mkfifo(join(tempDir(), 'f.json'));
    const c = start(s, ['accounts', 'count', '--filter-file', fifo]);
    await c.until(() => c.stderr().includes('waiting for a writer'));
    closeSync(openSync(fifo, 'w'));
    expect(await c.endsWithin(5000)).toBe(true);
    const end = await c.ended;
    expect(end.code, end.stderr).toBe(2);
  }, 20_000);
});

describe.skipIf(!hasMkfifo)('s9-r2: pipes that stall, devices, sockets, huge and growing files (HELD unless said)', () => {
  it('HELD: --filter-file FIFO, a writer that writes one byte and stalls: SIGTERM ends svc at once, exit 130', async () => {
    const s = sandbox();
    const fifo = mkfifo(join(tempDir(), 'f.json'));
    const c = start(s, ['accounts', 'count', '--filter-file', fifo]);
    await c.until(() => c.stderr().includes('waiting for a writer'));
    const w = openSync(fifo, 'w');
    try {
      writeSync(w, '{');
      // The byte is read once svc's pipe reader is on it; then the writer stalls.
      await c.until(() => !threadWaitsIn(c.child.pid, 'wait_for_partner'));
      c.child.kill('SIGTERM');
      expect(await c.endsWithin(5000)).toBe(true);
      const end = await c.ended;
      expect([end.code, end.stderr.trim().split('\n').pop()]).toEqual([130, 'svc: interrupted by SIGTERM']);
    } finally {
      closeSync(w);
    }
  }, 20_000);

  it('HELD: svc api --input FIFO, a writer that writes one byte and stalls: exit 2 after --timeout, saying how many bytes came', async () => {
    const s = sandbox();
    const fifo = mkfifo(join(tempDir(), 'body.json'));
    const c = start(s, ['api', 'accounts', '-X', 'POST', '--input', fifo, '--timeout', '1s']);
    const w = openSync(fifo, 'w');
    try {
      writeSync(w, '{');
      const end = await c.ended;
      expect(end.code, end.stderr).toBe(2);
      expect(end.stderr).toMatch(/stopped giving data for 1 s before it ended \(1 bytes came\)/);
    } finally {
      closeSync(w);
    }
  }, 20_000);

  it.each([['/dev/zero'], ['a 100 GB sparse file']])('HELD: --filter-file %s: exit 2 at once naming the 64 MB limit', async (what) => {
    const s = sandbox();
    let path = what;
    if (what !== '/dev/zero') {
      path = join(tempDir(), 'sparse.json');
      writeFileSync(path, '');
      truncateSync(path, 100 * 1024 ** 3);
    }
    const c = start(s, ['accounts', 'count', '--filter-file', path]);
    expect(await c.endsWithin(15_000)).toBe(true);
    const end = await c.ended;
    if (what !== '/dev/zero') rmSync(path);
    expect([end.code, oneLine(end.stderr)], end.stderr).toEqual([2, true]);
    expect(end.stderr).toMatch(/more than 64 MB/);
  }, 30_000);

  it('HELD: --filter-file a file that grows while svc reads it (a writer appending as fast as it can): svc ends (the limit, or what it read), one line', async () => {
    const s = sandbox();
    const path = join(tempDir(), 'growing.json');
    writeFileSync(path, '{"ID": {"<": 5}');
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let writing = true;
    const grow = (): void => {
      if (!writing) return;
      appendFileSync(path, chunk);
      setImmediate(grow);
    };
    grow();
    const c = start(s, ['accounts', 'count', '--filter-file', path]);
    const ended = await c.endsWithin(20_000);
    writing = false;
    const end = await c.ended;
    rmSync(path);
    expect(ended).toBe(true);
    expect([2, 1, 0]).toContain(end.code);
    expect(end.stderr.trim().split('\n').length, end.stderr).toBeLessThanOrEqual(1);
  }, 30_000);

  it('HELD: --filter-file a Unix socket file: exit 2 in one line (its wording is the errno, "ENXIO")', async () => {
    const s = sandbox();
    const path = join(tempDir(), 'sock');
    const server = createServer();
    await new Promise<void>((r) => server.listen(path, r));
    try {
      const end = await start(s, ['accounts', 'count', '--filter-file', path]).ended;
      expect([end.code, oneLine(end.stderr)], end.stderr).toEqual([2, true]);
    } finally {
      server.close();
    }
  }, 20_000);
});

/**
 * s9-r2 attack on the process-lifecycle fixes, on a real terminal: the built
 * svc runs in a pseudo-terminal (python3's pty module: a session of its own,
 * the pty its controlling terminal, as in a terminal window or an ssh
 * session). The test reads what the terminal shows, sends signals to svc, and
 * hangs the terminal up (closes its master side, as a closed window or a
 * dropped ssh connection does: the kernel sends SIGHUP), at moments chosen
 * by events (the N-th line the terminal shows, N seeded).
 *
 * What is attacked: SIGHUP handled as SIGTERM for export, sync and watch
 * (exit 130, what they keep saved, the terminal's descriptors closed at
 * exit), and the bounded reader of --filter-file, --data-file and
 * `svc api --input` ("a device such as /dev/stdin on a terminal … through
 * Node's asynchronous reads … so Ctrl-C and SIGTERM act at once").
 *
 * Tests marked HELD pass today (claims that held); the others fail now and
 * pass once the fault is fixed. Replay: SVC_S9R2_SEED=<n> npx vitest run test/attack/s9-r2-proc-tty.test.ts
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { sandboxCli, tempConfigDir } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { insertAccounts } from '../sync/support.js';
import { tempDir } from '../watch/support.js';

const SEED = process.env.SVC_S9R2_SEED ? Number(process.env.SVC_S9R2_SEED) : Math.floor(Math.random() * 2 ** 31);
const REPLAY = `replay: SVC_S9R2_SEED=${SEED} npx vitest run test/attack/s9-r2-proc-tty.test.ts`;
const random = createRandom(SEED);
const hasPython = spawnSync('python3', ['-c', 'import pty'], { stdio: 'ignore' }).status === 0;

const { sandbox, run } = sandboxCli();

/**
 * The terminal: forks a child on a new pty (its controlling terminal), copies what the terminal shows to
 * stdout, and obeys commands on stdin, one a line: `type HEX` (bytes typed), `hangup` (closes the master
 * side: the kernel sends SIGHUP), `kill N` (signal N to svc). Says `__PID__ <pid>` at the start and, when
 * the child ends, `__END__ <exit code, or -signal>` on stderr.
 */
const DRIVER = String.raw`
import os, pty, sys, select
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
sys.stderr.write('__PID__ %d\n' % pid); sys.stderr.flush()
out = sys.stdout.buffer
cmd = b''
master_open = True
while True:
    fds = [0] + ([fd] if master_open else [])
    r, _, _ = select.select(fds, [], [], 0.05)
    if fd in r and master_open:
        try:
            d = os.read(fd, 65536)
        except OSError:
            d = b''
        if d:
            out.write(d); out.flush()
    if 0 in r:
        chunk = os.read(0, 4096)
        cmd += chunk
        while b'\n' in cmd:
            line, cmd = cmd.split(b'\n', 1)
            parts = line.decode().split()
            if not parts: continue
            if parts[0] == 'type': os.write(fd, bytes.fromhex(parts[1]))
            elif parts[0] == 'kill':
                try: os.kill(pid, int(parts[1]))
                except ProcessLookupError: pass
            elif parts[0] == 'hangup' and master_open:
                os.close(fd); master_open = False
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        if master_open:
            try:
                while True:
                    d = os.read(fd, 65536)
                    if not d: break
                    out.write(d)
            except OSError:
                pass
            out.flush()
        sys.stderr.write('__END__ %d\n' % os.waitstatus_to_exitcode(status)); sys.stderr.flush()
        break
`;

interface Terminal {
  readonly child: ChildProcess;
  shown(): string;
  /** Resolves once the terminal showed `test` (or svc ended). */
  until(test: (shown: string) => boolean, ms?: number): Promise<void>;
  hangup(): void;
  kill(signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP'): void;
  /** svc's exit code, or minus the signal that ended it; undefined when it still ran `ms` after it was asked to stop (then it is killed). */
  readonly ended: Promise<number>;
  /** Whether svc ended within `ms`. */
  endsWithin(ms: number): Promise<boolean>;
  /** svc's pid (the shell line execs it), once the driver said it. */
  pid(): number | undefined;
}

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

function terminal(s: TestSandbox, shellLine: string, env: Record<string, string> = {}): Terminal {
  const dir = tempDir();
  const driver = join(dir, 'driver.py');
  writeFileSync(driver, DRIVER);
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, SVC_URL: s.instanceUrl, SVC_TOKEN: s.token(), SVC_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', TERM: 'xterm', ...env };
  // An empty value given here means: not set at all.
  for (const [k, v] of Object.entries(env)) if (v === '') delete fullEnv[k];
  const child = spawn('python3', [driver, 'sh', '-c', shellLine], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  let finished = false;
  const poke = (): void => {
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', (c: Buffer) => {
    chunks.push(c);
    poke();
  });
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const ended = new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', () => {
      clearTimeout(watchdog);
      finished = true;
      poke();
      const m = /__END__ (-?\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
      else reject(new Error(`the terminal driver ended without a result: ${stderr}`));
    });
  });
  const shown = (): string => Buffer.concat(chunks).toString('utf8');
  const send = (line: string): void => void child.stdin!.write(`${line}\n`);
  return {
    child,
    shown,
    ended,
    until: (test, ms = 20_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!finished && !test(shown())) return;
          listeners.delete(check);
          clearTimeout(timer);
          clearInterval(poll);
          resolve();
        };
        // Tests on things outside the output (/proc) are checked as they change, every 25 ms.
        const poll = setInterval(check, 25);
        const timer = setTimeout(() => {
          clearInterval(poll);
          listeners.delete(check);
          reject(new Error(`the terminal never showed what was awaited; it showed:\n${shown().slice(-2000)}\n${stderr}`));
        }, ms);
        listeners.add(check);
        check();
      }),
    pid: () => {
      const m = /__PID__ (\d+)/.exec(stderr);
      return m ? Number(m[1]) : undefined;
    },
    hangup: () => send('hangup'),
    kill: (signal) => send(`kill ${SIGNALS[signal]}`),
    endsWithin: (ms) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          // Still running: end it (the driver, then svc through its pty closing) so the test can go on.
          send(`kill 9`);
          resolve(false);
        }, ms);
        void ended.then(
          () => {
            clearTimeout(timer);
            resolve(true);
          },
          () => {
            clearTimeout(timer);
            resolve(true);
          },
        );
      }),
  };
}

const quote = (args: readonly string[]): string => args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
const svcLine = (args: readonly string[], redirect = ''): string => `exec ${process.execPath} bin/svc.js ${quote(args)} ${redirect}`;
const lineCount = (text: string): number => (text.match(/"ID":/g) ?? []).length;

/**
 * Whether process `pid` waits to read a pseudo-terminal it opened a second time (/dev/stdin on one: a
 * descriptor past 2): blocked in one of its threads (/proc/PID/task/TID/syscall: read(2) is 0, its first
 * argument the descriptor), or (the fix: the terminal read through the event loop) its main thread waiting
 * in epoll_wait/epoll_pwait/epoll_pwait2 (232, 281, 441) with that descriptor open.
 */
function readsTerminalAgain(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    const fds = readdirSync(`/proc/${pid}/fd`).filter((fd) => {
      if (Number(fd) <= 2) return false;
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('/dev/pts/');
      } catch {
        return false;
      }
    });
    return readdirSync(`/proc/${pid}/task`).some((tid) => {
      try {
        const [nr, arg] = readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'utf8').split(' ');
        if (Number(tid) === pid && fds.length > 0 && ['232', '281', '441'].includes(nr ?? '')) return true;
        return nr === '0' && fds.some((fd) => Number(arg) === Number(fd));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** What an exit status means to a person reading a supervisor's log. */
function described(code: number): string {
  if (code === -6) return 'killed by SIGABRT (a native assertion: Node could not restore the terminal; a core dump)';
  if (code === -11) return 'killed by SIGSEGV (a segmentation fault; a core dump)';
  if (code < 0) return `killed by signal ${-code}`;
  return `exit ${code}`;
}

describe.skipIf(!hasPython)(`s9-r2: the terminal hangs up while svc writes to it (seed ${SEED})`, () => {
  it.each([
    ['watch', (cursor: string) => ['accounts', 'watch', '--filter', 'lastname ~ "^R2hup "', '--fields', 'ID,lastname', '--page-size', '2', '--interval', '1s', '--cursor-file', cursor]],
    ['export -o ndjson', () => ['accounts', 'export', '-o', 'ndjson', '--filter', 'lastname ~ "^R2hup "', '--fields', 'ID,lastname', '--page-size', '2']],
  ] as const)(
    '%s printing to the terminal: a hang-up ends it as the README says (exit 130, "interrupted by SIGHUP"), never exit 1 for EIO nor a native crash (SIGABRT/SIGSEGV)',
    async (name, argsOf) => {
      const s = sandbox();
      insertAccounts(s, 400, Math.floor(Date.now() / 1000) - 3600, 'R2hup');
      const dir = tempDir();
      const cursor = join(dir, 'c');
      const results: string[] = [];
      // Several hang-ups: the fault is a race between the write that fails (EIO) and the SIGHUP handler.
      for (let trial = 0; trial < 6; trial++) {
        const after = random.int(3, 60);
        const t = terminal(s, svcLine(argsOf(`${cursor}${trial}`)));
        await t.until((shown) => lineCount(shown) >= after);
        t.hangup();
        const finished = await t.endsWithin(15_000);
        const code = finished ? await t.ended : NaN;
        results.push(`hung up after ${after} lines: ${finished ? described(code) : 'still running 15 s later'}`);
        if (name === 'watch') expect(existsSync(`${cursor}${trial}.svc-lock`), `${REPLAY}; ${results.join('; ')}`).toBe(false);
      }
      // Today, most hang-ups end in "svc: cannot write to standard output: write EIO (EIO)", exit 1, and then
      // often in Node's assertion in ResetStdio (SIGABRT) or a SIGSEGV: the hungUp() close of the terminal's
      // descriptors runs only when the SIGHUP handler won the race.
      expect(results, `${REPLAY}\n${name}: ${results.join('\n')}`).toEqual(results.map((r) => r.replace(/: .*$/, ': exit 130')));
      // HELD or not, a watch hung up so can be resumed.
      if (name === 'watch') {
        const resumed = await run([...argsOf(`${cursor}0`), '--once']);
        expect(resumed.code, resumed.stderr).toBe(0);
      }
    },
    90_000,
  );

  it(`HELD: export --output-file with --progress on the terminal, hung up at a seeded line of progress: exit 130, the lock gone, and --resume finishes the same file as a run never stopped (seed ${SEED})`, async () => {
    const s = sandbox();
    insertAccounts(s, 600, Math.floor(Date.now() / 1000) - 3600, 'R2exp');
    const dir = tempDir();
    const out = join(dir, 'a.ndjson');
    const args = ['accounts', 'export', '--filter', 'lastname ~ "^R2exp "', '--fields', 'ID,lastname', '--page-size', '3', '-o', 'ndjson', '--output-file', out, '--progress'];
    const redraws = random.int(1, 4);
    const t = terminal(s, svcLine(args));
    await t.until((shown) => (shown.match(/rows/g) ?? []).length >= redraws);
    t.hangup();
    expect(await t.endsWithin(15_000), REPLAY).toBe(true);
    const code = await t.ended;
    const left = readdirSync(dir).sort();
    expect([described(code), left], `${REPLAY}; ${t.shown().slice(-300)}`).toEqual(
      code === 0 ? ['exit 0', ['a.ndjson']] : ['exit 130', ['a.ndjson.svc-checkpoint.json', 'a.ndjson.svc-partial']],
    );
    const resumed = await run([...args.filter((a) => a !== '--progress'), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const whole = join(dir, 'whole.ndjson');
    const fresh = await run([...args.filter((a) => a !== '--progress').map((a) => (a === out ? whole : a))]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(whole, 'utf8'));
  }, 60_000);
});

describe.skipIf(!hasPython || !existsSync('/proc/self/syscall'))('s9-r2: a file argument that is the terminal itself (/dev/stdin on a terminal), and SIGTERM', () => {
  it.each([
    ['count --filter-file /dev/stdin', ['accounts', 'count', '--filter-file', '/dev/stdin']],
    ['create --data-file /dev/stdin', ['accounts', 'create', '--data-file', '/dev/stdin']],
    ['api --input /dev/stdin', ['api', 'accounts', '-X', 'POST', '--input', '/dev/stdin']],
    ['import --from /dev/stdin', ['accounts', 'import', '--from', '/dev/stdin']],
    ['--token-file /dev/stdin ("type the token, then Ctrl-D")', ['accounts', 'count', '--token-file', '/dev/stdin']],
  ] as const)(
    '%s: SIGTERM while svc waits for what is typed ends it at once (exit 130), as the reader\'s comment and the README say, instead of staying until a line is typed',
    async (name, args) => {
      const s = sandbox();
      const t = terminal(s, svcLine(args), name.startsWith('--token-file') ? { SVC_TOKEN: '' } : {});
      // The moment: svc has opened the terminal a second time (/dev/stdin, a descriptor past 2) and waits in its read.
      await t.until(() => readsTerminalAgain(t.pid()));
      expect(t.shown(), 'svc printed something before it was signalled').toBe('');
      t.kill('SIGTERM');
      const ended = await t.endsWithin(5000);
      // Today: the terminal shows "svc: interrupted by SIGTERM", yet the process stays, its read of the terminal
      // blocking in a libuv thread that process.exit() waits for, until a line is typed (--token-file reads the
      // terminal synchronously, on the main thread: the SIGTERM is not even answered).
      expect({ ended, shown: t.shown().trim() }).toEqual({ ended: true, shown: 'svc: interrupted by SIGTERM' });
      expect(await t.ended).toBe(130);
    },
    30_000,
  );
});

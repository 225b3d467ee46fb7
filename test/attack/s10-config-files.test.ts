/**
 * s10-config: hostile state in the config directory (README "Signing in": profiles in config.json, mode
 * 0600; the opt-in credentials.insecure.json, 0600; "a config.json svc cannot read or write … or a profile
 * in it that is not one svc wrote … is one line naming the file or the profile and the fix"; "Exit codes":
 * an error is one line on stderr naming the problem and the fix).
 *
 * Earlier rounds (s7-creds-config, s7-r2-config-lock) covered invalid JSON, a directory in place of
 * config.json, 100,000-deep nesting, "__proto__" keys, concurrent writes and damaged profile entries.
 * This file goes where they did not: config files that are not regular files, JSON that is not an
 * object, byte-order marks and bytes that are not UTF-8, URLs and names no `profile add` would write,
 * and the plain-file store's permissions.
 *
 * FINDING tests fail on HEAD and pass once fixed; HELD tests pass now.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const URL1 = 'http://127.0.0.1:9/demo';

function dir(): string {
  return mkdtempSync(join(tmpdir(), 's10-config-files-'));
}

interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * The built svc as a shell runs it. `deadlineMs`: when it has not ended by then it gets SIGTERM (as
 * `timeout` or systemd sends), and SIGKILL 3 s later, so a hang never holds the test runner.
 */
function spawned(configDir: string, args: string[], opts: { env?: Record<string, string>; deadlineMs?: number; shell?: string } = {}) {
  const bin = join(root, 'bin', 'svc.js');
  const [cmd, argv] = opts.shell ? ['sh', ['-c', `${opts.shell}; exec "$0" "$@"`, process.execPath, bin, ...args]] : [process.execPath, [bin, ...args]];
  const child = spawn(cmd as string, argv as string[], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: configDir, SVC_CONFIG_DIR: configDir, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const started = Date.now();
  let termAt: number | undefined;
  const timers: NodeJS.Timeout[] = [];
  if (opts.deadlineMs !== undefined) {
    timers.push(
      setTimeout(() => {
        termAt = Date.now();
        child.kill('SIGTERM');
        timers.push(setTimeout(() => child.kill('SIGKILL'), 3000));
      }, opts.deadlineMs),
    );
  }
  const done = new Promise<Spawned & { termToEndMs?: number }>((resolve) =>
    child.on('close', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      const end = Date.now();
      resolve({ code, signal, stdout, stderr, ms: end - started, ...(termAt !== undefined ? { termToEndMs: end - termAt } : {}) });
    }),
  );
  return { child, done };
}

function writeConfig(d: string, value: unknown): void {
  writeFileSync(join(d, 'config.json'), typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value), { mode: 0o600 });
}

/** An error as README "Exit codes" promises it: one line, not svc's own crash. */
function oneLineError(stderr: string): void {
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
  expect(stderr, stderr).toMatch(/^svc: /);
  expect(stderr, stderr).not.toMatch(/unexpected error|\n\s+at /);
}

const profile = (url = URL1, extra: Record<string, unknown> = {}) => ({ url, identifier: 'svc-test-1', ...extra });

describe('FINDING: a config.json that is a FIFO or a device holds every command for ever, and SIGTERM cannot stop it', () => {
  // readFileSync of config.json (src/config/profiles.ts readConfig) blocks the only thread: svc's SIGTERM
  // handler never runs, so `timeout 30 svc …` in cron, systemd's stop and Ctrl-C all fail to end it. The token
  // file (README: a FIFO nobody writes to never holds a cron job) and sandbox.json are judged by their
  // descriptor first; config.json and credentials.insecure.json are not.
  it.each(['profile list', 'whoami'])('config.json is a FIFO nobody writes to: `svc %s` answers within 5 s in one line naming the file', async (cmd) => {
    const d = dir();
    execFileSync('mkfifo', [join(d, 'config.json')]);
    const r = await spawned(d, cmd.split(' '), { env: { SVC_TOKEN: 'tok' }, deadlineMs: 5000 }).done;
    expect(r.termToEndMs, `still blocked after 5 s; ${r.signal ?? r.code}`).toBeUndefined();
    expect(r.code).not.toBe(0);
    oneLineError(r.stderr);
    expect(r.stderr).toContain('config.json');
  }, 15_000);

  it('config.json is a FIFO a writer keeps open: svc refuses it unread (exit 2), or SIGTERM ends svc within 2 s (exit 130), as it ends every other command', async () => {
    const d = dir();
    const fifo = join(d, 'config.json');
    execFileSync('mkfifo', [fifo]);
    const { child, done } = spawned(d, ['profile', 'list']);
    // The event: svc has opened the FIFO for reading (our open for writing completes only then).
    const writer = await open(fifo, 'w');
    const sent = Date.now();
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 4000);
    const r = await done;
    clearTimeout(killer);
    await writer.close();
    expect(Date.now() - sent, `${r.signal ?? r.code} ${r.stderr}`).toBeLessThan(2000);
    expect(r.signal).toBeNull();
    // The fix refuses a FIFO without reading it (exit 2, one line naming the file): the SIGTERM may come after that.
    if (r.code === 2) expect(r.stderr).toMatch(/^svc: cannot read .*config\.json \(it is a named pipe \(FIFO\), not a file\)/);
    else expect(r.code).toBe(130);
  }, 15_000);

  it('config.json is a symbolic link to /dev/zero (a bad dotfile link): `svc profile list` answers within 5 s in one line naming the file', async () => {
    const d = dir();
    symlinkSync('/dev/zero', join(d, 'config.json'));
    const r = await spawned(d, ['profile', 'list'], { deadlineMs: 5000 }).done;
    expect(r.termToEndMs, `still reading after 5 s; ${r.signal ?? r.code}`).toBeUndefined();
    expect(r.code).not.toBe(0);
    oneLineError(r.stderr);
    expect(r.stderr).toContain('config.json');
  }, 15_000);

  it('credentials.insecure.json is a FIFO: `svc whoami` of an --insecure-storage profile answers within 5 s naming the file, and `svc profile remove` does not hang half-done', async () => {
    const d = dir();
    writeConfig(d, { current: 'a', profiles: { a: profile(URL1, { insecureStorage: true }) } });
    execFileSync('mkfifo', [join(d, 'credentials.insecure.json')]);
    const who = await spawned(d, ['whoami'], { deadlineMs: 5000 }).done;
    expect(who.termToEndMs, `whoami still blocked after 5 s; ${who.signal ?? who.code}`).toBeUndefined();
    oneLineError(who.stderr);
    expect(who.stderr).toContain('credentials.insecure.json');
    const rm = await spawned(d, ['profile', 'remove', 'a'], { deadlineMs: 5000 }).done;
    expect(rm.termToEndMs, `profile remove still blocked after 5 s (the profile is already gone from config.json); ${rm.signal ?? rm.code}`).toBeUndefined();
  }, 30_000);
});

describe('FINDING: a config.json that is JSON but not an object is taken for "no profiles", and the next write mangles it', () => {
  // readConfig ignores what is not an object (profile list: [] and exit 0), while conf, which writes, spreads
  // it: a string's characters become profiles "0", "1", "2" that every later command refuses as damaged; an
  // array's items become profiles named "0", "1". Invalid JSON, by contrast, is one line naming the file (exit 2).
  it.each([
    ['a top-level array', '[{"url":"http://127.0.0.1:9/demo"}]'],
    ['a top-level string', '"svc"'],
    ['a top-level number', '42'],
    ['profiles that is a string', '{"profiles":"abc"}'],
    ['profiles that is a list', '{"profiles":[{"url":"http://127.0.0.1:9/demo"}]}'],
  ])('%s: `profile list` is one line naming config.json (not [] with exit 0), and `profile add` leaves the file as it was', async (_what, text) => {
    const d = dir();
    writeConfig(d, text);
    const list = await svc(['profile', 'list'], { configDir: d });
    expect(list.code, list.stdout).not.toBe(0);
    oneLineError(list.stderr);
    expect(list.stderr).toContain(join(d, 'config.json'));
    const add = await svc(['profile', 'add', 'x', '--url', URL1], { configDir: d });
    expect(add.code, add.stderr).not.toBe(0);
    expect(readFileSync(join(d, 'config.json'), 'utf8')).toBe(text);
  });

  it('what a string under "profiles" became is not a profile list that fails ever after (today: profile \'0\' … is damaged)', async () => {
    const d = dir();
    writeConfig(d, '{"profiles":"abc"}');
    await svc(['profile', 'add', 'x', '--url', URL1], { configDir: d });
    const list = await svc(['profile', 'list'], { configDir: d });
    expect(list.stderr).not.toMatch(/profile '0'/);
  });
});

describe('FINDING: a config.json saved with a byte-order mark (Windows Notepad, some editors) is refused with an invisible character as the reason', () => {
  it("`svc profile list`: reads it (as token files are read, BOM and all), or says it starts with a byte-order mark; never \"Unexpected token ''\" with a raw U+FEFF", async () => {
    const d = dir();
    writeConfig(d, `\ufeff${JSON.stringify({ current: 'a', profiles: { a: profile() } })}`);
    const r = await svc(['profile', 'list', '-o', 'json'], { configDir: d });
    expect(r.stderr).not.toContain('\ufeff');
    if (r.code === 0) expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ name: 'a', current: true })]);
    else expect(r.stderr).toMatch(/byte.order mark|BOM/i);
  });
});

describe('FINDING: bytes that are not UTF-8 in config.json are replaced silently by the next write', () => {
  it("`profile add c` rewrites another profile's name and URL with U+FFFD (\"b\\xc3\" becomes \"b\uFFFD\"): it refuses the file, or leaves the other profiles' bytes as they were", async () => {
    const d = dir();
    const raw = Buffer.concat([
      Buffer.from('{"current":"a","profiles":{"a":{"url":"http://127.0.0.1:9/demo'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","identifier":"i"},"b'),
      Buffer.from([0xc3]),
      Buffer.from('":{"url":"http://127.0.0.1:9/demo","identifier":"j"}}}'),
    ]);
    writeConfig(d, raw);
    const add = await svc(['profile', 'add', 'c', '--url', URL1], { configDir: d });
    const after = readFileSync(join(d, 'config.json'));
    if (add.code === 0) {
      expect(after.includes(Buffer.from([0xff, 0xfe])), 'the bytes of profile a were replaced').toBe(true);
      expect(after.toString('utf8')).not.toContain('\ufffd');
    } else {
      oneLineError(add.stderr);
      expect(after.equals(raw)).toBe(true);
    }
  });
});

describe('FINDING: a profile whose URL svc would never have written (a hand edit) is blamed on an "instance URL" without naming the profile, the file or the fix', () => {
  // README: a profile that is not one svc wrote is "one line naming the file or the profile and the fix".
  // Today: "svc: instance URL 'javascript:alert(1)' must start with https://" — from whoami, logout and every
  // record command — and the user cannot tell it came from config.json, nor that `svc profile add a --url …`
  // (or remove) fixes it. `svc login` would even sign in first (it needs no valid URL to ask for secrets).
  it.each(['javascript:alert(1)', 'file:///etc/passwd', 'https://erp.example.com', 'http://erp.example.com/acme'])('url %s: whoami, logout and accounts query name profile a and the fix', async (url) => {
    const d = dir();
    writeConfig(d, { current: 'a', profiles: { a: profile(url) } });
    for (const args of [['whoami'], ['logout'], ['accounts', 'query']]) {
      const r = await svc(args, { configDir: d, env: { SVC_TOKEN: 'tok_hand_edit' } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      oneLineError(r.stderr);
      expect(r.stderr, args.join(' ')).toMatch(/profile 'a'/);
      expect(r.stderr, args.join(' ')).toMatch(/svc profile (add|remove) a/);
    }
  });
});

describe('FINDING: `svc profile list` and `svc profile show` print the password of a URL with credentials in it', () => {
  // A hand-edited (or older) config.json with https://user:password@host/…: every command refuses the URL
  // without quoting the credentials ("instance URL 'https://erp.example.com/acme' must not carry … credentials"),
  // but the two commands that show profiles print the password as it is (kubectl config view shows REDACTED).
  it.each(['profile list', 'profile show', 'profile list -o table', 'profile show -o table'])('svc %s: the password is not on stdout or stderr', async (cmd) => {
    const d = dir();
    writeConfig(d, { current: 'a', profiles: { a: profile('https://dana:hunter2-secret@erp.example.com/acme') } });
    const r = await svc(cmd.split(' '), { configDir: d });
    expect(r.stdout + r.stderr).not.toContain('hunter2-secret');
  });
});

describe("FINDING: a profile name in config.json reaches the terminal raw in `auth status`, `auth token` and `logout`", () => {
  // s7 fixed names from the command line and SVC_PROFILE (shown() replaces control characters with '?'); the
  // current profile's name read from config.json is still printed raw by these three (whoami escapes it).
  it.each(['auth status', 'auth token', 'logout'])('svc %s: no escape sequence on stdout or stderr', async (cmd) => {
    const d = dir();
    const name = 'a\u001b]0;owned\u0007\u001b[2J';
    writeConfig(d, { current: name, profiles: { [name]: profile() } });
    const r = await svc(cmd.split(' '), { configDir: d, env: { NO_COLOR: '1' } });
    expect(r.stdout + r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});

describe('FINDING: credentials.insecure.json that others can read is used without a word', () => {
  // The same secrets in SVC_TOKEN_FILE get "warning: token file … can be read by others (mode 644); run
  // chmod 600 …" (README: svc warns when others can read it). The plain file svc keeps itself, README "(0600)",
  // restored from a backup or copied with cp at mode 644, is read silently (ssh refuses such a key outright).
  it('mode 0644: `svc auth token` warns that others can read it and names chmod 600', async () => {
    const d = dir();
    writeConfig(d, { current: 'a', profiles: { a: profile(URL1, { insecureStorage: true }) } });
    const file = join(d, 'credentials.insecure.json');
    writeFileSync(file, JSON.stringify({ 'profile:a/token': 'tok_plain_0644' }));
    chmodSync(file, 0o644);
    const r = await svc(['auth', 'token'], { configDir: d });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('tok_plain_0644');
    expect(r.stderr).toMatch(/read by others|readable by others|world.readable/);
    expect(r.stderr).toMatch(/chmod 600/);
  });
});

describe('HELD: what svc creates in its config dir is private, whatever the umask', () => {
  it('umask 000: the new config dir is 0700 and config.json 0600, and no lock or temporary file is left', async () => {
    const d = join(dir(), 'fresh', 'svc');
    for (const args of [['profile', 'add', 'a', '--url', URL1], ['profile', 'add', 'b', '--url', URL1], ['profile', 'use', 'b']]) {
      const r = await spawned(d, args, { shell: 'umask 000' }).done;
      expect(r.code, r.stderr).toBe(0);
    }
    expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(statSync(join(d, 'config.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(['config.json']);
  });
});

describe('HELD: config dirs and names that are odd but legitimate', () => {
  it('the config dir is a symbolic link to a directory elsewhere (dotfiles): add, use and remove work, the link stays a link', async () => {
    const real = dir();
    const base = dir();
    const link = join(base, 'svc');
    symlinkSync(real, link);
    for (const args of [['profile', 'add', 'a', '--url', URL1], ['profile', 'add', 'b', '--url', URL1], ['profile', 'use', 'b'], ['profile', 'remove', 'a']]) {
      const r = await svc(args, { configDir: link });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const c = JSON.parse(readFileSync(join(real, 'config.json'), 'utf8')) as { current: string; profiles: Record<string, unknown> };
    expect(Object.keys(c.profiles)).toEqual(['b']);
    expect(c.current).toBe('b');
  });

  it('a config dir whose path holds spaces and a newline: profiles work, and an error about its config.json stays one line', async () => {
    const d = join(dir(), 'my config\nsvc');
    mkdirSync(d, { recursive: true });
    const add = await svc(['profile', 'add', 'a', '--url', URL1], { configDir: d });
    expect(add.code, add.stderr).toBe(0);
    writeConfig(d, '{not json');
    const r = await svc(['profile', 'list'], { configDir: d });
    expect(r.code).toBe(2);
    oneLineError(r.stderr);
  });

  it('profiles named constructor, toString and hasOwnProperty are ordinary profiles', async () => {
    const d = dir();
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      const r = await svc(['profile', 'add', name, '--url', URL1], { configDir: d });
      expect(r.code, r.stderr).toBe(0);
    }
    const use = await svc(['profile', 'use', 'toString'], { configDir: d });
    expect(use.code, use.stderr).toBe(0);
    const list = await svc(['profile', 'list', '-o', 'json'], { configDir: d });
    expect((JSON.parse(list.stdout) as { name: string }[]).map((p) => p.name)).toEqual(['constructor', 'hasOwnProperty', 'toString']);
    const rm = await svc(['profile', 'remove', 'constructor'], { configDir: d });
    expect(rm.code, rm.stderr).toBe(0);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it('a 100 MB config.json (a junk member): profile list and profile add still work, and the junk is kept', async () => {
    const d = dir();
    const junk = 'x'.repeat(100 * 1024 * 1024);
    writeConfig(d, `{"current":"a","profiles":{"a":{"url":"${URL1}","identifier":"i"}},"junk":"${junk}"}`);
    const r = await spawned(d, ['profile', 'add', 'b', '--url', URL1], { deadlineMs: 15_000 }).done;
    expect(r.code, r.stderr).toBe(0);
    const list = await spawned(d, ['profile', 'list', '-o', 'json'], { deadlineMs: 15_000 }).done;
    expect((JSON.parse(list.stdout) as { name: string }[]).map((p) => p.name)).toEqual(['a', 'b']);
    expect(statSync(join(d, 'config.json')).size).toBeGreaterThan(100 * 1024 * 1024);
    rmSync(d, { recursive: true, force: true });
  }, 40_000);

  it('SVC_CONFIG_DIR= (an unset variable in a script) is taken as unset: XDG_CONFIG_HOME/svc is used, not the working directory', async () => {
    const xdg = dir();
    const cwd = dir();
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'profile', 'add', 'a', '--url', URL1], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: xdg, SVC_CONFIG_DIR: '', XDG_CONFIG_HOME: xdg },
      stdio: 'ignore',
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(existsSync(join(xdg, 'svc', 'config.json'))).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

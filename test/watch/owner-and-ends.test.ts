/**
 * What a cursor file belongs to (the instance's URL, the text of a filter read
 * from stdin; files from an older svc without them), its name's length, the ID
 * under another name, and the ways a watch ends: SIGHUP as SIGTERM, a
 * process.exit() that still removes the lock, a page that fails because the
 * service cannot be reached (not asked again smaller).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError } from '../../src/http/errors.js';
import { smallerMayHelp } from '../../src/export/pager.js';
import { acquireLock } from '../../src/util/file-lock.js';
import { runExitHooks } from '../../src/util/exit-hooks.js';
import { interruptSignal } from '../../src/util/interrupt.js';
import { sandboxCli, svc, tempConfigDir } from '../helpers/cli.js';
import { insertAccounts } from '../sync/support.js';
import { createAccount, idsOf, LineCapture, readCursor, signalProcesses, tempDir } from './support.js';

const { sandbox, run } = sandboxCli();

const rewrite = (path: string, edit: (json: Record<string, unknown>) => void): void => {
  const json = readCursor(path);
  edit(json);
  writeFileSync(path, `${JSON.stringify(json)}\n`);
};

describe('watch: the instance a cursor file belongs to', () => {
  it('is recorded; another instance is refused before anything is sent (exit 2, one line naming both)', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--since', 'now', '--once', '--cursor-file', cursor];
    expect((await run(args)).code).toBe(0);
    expect(readCursor(cursor).instance).toBe(s.instanceUrl);
    const before = s.sandbox.hooks.requests.length;
    const other = 'http://127.0.0.1:1/elsewhere';
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', cursor], { env: { SVC_URL: other } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svc: the cursor file ${cursor} belongs to a watch of the instance ${s.instanceUrl}, not ${other}; point svc at that instance (--profile, --url or SVC_URL), or give another --cursor-file (the same instance at a new address: change "instance" in the file)\n`,
    });
    expect(s.sandbox.hooks.requests.length).toBe(before);
    expect(readdirSync(join(cursor, '..'))).toEqual(['c']);
  });

  it('the same URL spelt with a trailing slash is the same instance', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    expect((await run(['accounts', 'watch', '--since', 'now', '--once', '--cursor-file', cursor])).code).toBe(0);
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', cursor], { env: { SVC_URL: `${s.instanceUrl}/` } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });

  it('a file from before svc recorded it is taken by the first instance that resumes it, and names it from then on', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    expect((await run(['accounts', 'watch', '--since', 'now', '--once', '--cursor-file', cursor])).code).toBe(0);
    rewrite(cursor, (j) => delete j.instance);
    const resumed = await run(['accounts', 'watch', '--once', '--cursor-file', cursor]);
    expect(resumed).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readCursor(cursor).instance).toBe(s.instanceUrl);
    const other = await run(['accounts', 'watch', '--once', '--cursor-file', cursor], { env: { SVC_URL: 'http://127.0.0.1:1/elsewhere' } });
    expect(other.code).toBe(2);
  });

  it('an instance that is not a string is a damaged file', async () => {
    const cursor = join(tempDir(), 'c');
    expect((await run(['accounts', 'watch', '--since', 'now', '--once', '--cursor-file', cursor])).code).toBe(0);
    rewrite(cursor, (j) => (j.instance = 42));
    const r = await run(['accounts', 'watch', '--once', '--cursor-file', cursor]);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/is damaged \(instance not a URL\)/) });
  });
});

describe('watch: a filter from stdin and the cursor file', () => {
  const args = (cursor: string): string[] => ['accounts', 'watch', '--filter-file', '-', '--fields', 'ID', '--once', '--cursor-file', cursor];

  it('its text is recorded as a filter file\'s; a file from before that resumes once with any filter and records it', async () => {
    const cursor = join(tempDir(), 'c');
    expect((await run(args(cursor), { stdin: ['{"ID": {"<": 3}}\n'] })).code).toBe(0);
    const hash = (readCursor(cursor).query as Record<string, unknown>).filterFileSha256;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    // The same text, however it ends, resumes.
    expect(await run(args(cursor), { stdin: ['{"ID": {"<": 3}}'] })).toMatchObject({ code: 0, stdout: '' });
    rewrite(cursor, (j) => delete (j.query as Record<string, unknown>).filterFileSha256);
    expect((await run(args(cursor), { stdin: ['{"ID": {"<": 4}}'] })).code).toBe(0);
    expect((readCursor(cursor).query as Record<string, unknown>).filterFileSha256).not.toBe(hash);
    const changed = await run(args(cursor), { stdin: ['{"ID": {"<": 3}}'] });
    expect(changed).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining(`the cursor file ${cursor} belongs to a watch with other options`) });
  });
});

describe('watch: a filter file', () => {
  it('is read once (a FIFO, as `<(command)` gives, has nothing to give a second time), its text hashed', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'filter');
    execFileSync('mkfifo', [fifo]);
    const text = '{"ID": {"<": 3}}';
    const writer = spawn('sh', ['-c', `printf '%s' '${text}' > ${fifo}`], { stdio: 'ignore' });
    const cursor = join(dir, 'c');
    const r = await run(['accounts', 'watch', '--filter-file', fifo, '--fields', 'ID', '--once', '--cursor-file', cursor]);
    writer.kill();
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(r.stdout)).toEqual([1, 2]);
    expect((readCursor(cursor).query as Record<string, unknown>).filterFileSha256).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it.each([
    ['{"ID": ', /^svc: --filter-file \S+bad\.json is not valid JSON: /],
    ['{"nosuchfield": 1}', /^svc: --filter-file \S+bad\.json: unknown field/],
  ])('%s: its messages name the file', async (text, message) => {
    const file = join(tempDir(), 'bad.json');
    writeFileSync(file, text);
    const r = await run(['accounts', 'watch', '--filter-file', file, '--once']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(message) });
  });

  it('given twice: both ANDed, each text hashed; the cursor file resumes with both and refuses a change to either', async () => {
    const dir = tempDir();
    const [a, b, cursor] = [join(dir, 'a.json'), join(dir, 'b.json'), join(dir, 'c')];
    writeFileSync(a, '{"ID": {"<": 4}}');
    writeFileSync(b, '{"ID": {">": 1}}');
    const args = ['accounts', 'watch', '--filter-file', a, '--filter-file', b, '--fields', 'ID', '--once', '--cursor-file', cursor];
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(r.stdout)).toEqual([2, 3]);
    const query = readCursor(cursor).query as Record<string, unknown>;
    expect(query.filterFile).toEqual([a, b]);
    expect(query.filterFileSha256).toEqual(['{"ID": {"<": 4}}', '{"ID": {">": 1}}'].map((t) => createHash('sha256').update(t).digest('hex')));
    expect(await run(args)).toMatchObject({ code: 0, stdout: '' });
    writeFileSync(b, '{"ID": {">": 2}}');
    expect(await run(args)).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('belongs to a watch with other options') });
  });
});

describe('watch: the cursor file\'s name', () => {
  it('leaves room for the files beside it: 227 bytes run, 228 are refused (exit 2, naming it) with nothing made', async () => {
    const dir = tempDir();
    const ok = await run(['accounts', 'watch', '--since', 'now', '--once', '--cursor-file', join(dir, 'c'.repeat(227))]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    const long = join(dir, 'é'.repeat(114)); // 228 bytes in UTF-8
    const r = await run(['accounts', 'watch', '--since', 'now', '--once', '--cursor-file', long]);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `svc: --cursor-file ${long}: the name is too long for the files svc keeps beside it (FILE.svc-lock and its drafts); give a name of at most 227 bytes\n` });
    expect(readdirSync(dir)).toEqual(['c'.repeat(227)]);
  });
});

describe('watch --fields and the ID', () => {
  it.each(['lastname,key=ID', 'id=ID,lastname'])('%s: exit 2, one line, nothing sent', async (fields) => {
    const s = sandbox();
    const before = s.sandbox.hooks.requests.length;
    const r = await run(['accounts', 'watch', '--once', '--fields', fields]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: --fields: the ID is written as "ID" in every line \(a delete carries only \{"ID":n\}\), not as (key|id); give it as ID\n$/);
    expect(s.sandbox.hooks.requests.length).toBe(before);
  });
});

describe('watch on a terminal', () => {
  it('says its interval as people write it', async () => {
    const r = await run(['accounts', 'watch', '--since', 'now', '--once', '--interval', '1h30m'], { tty: true });
    expect(r).toMatchObject({ code: 0, stderr: 'svc: watching accounts every 1h30m (Ctrl-C to stop)\n' });
  });
});

describe('watch: SIGHUP (the terminal closed)', () => {
  it('stops it as SIGTERM does: exit 130, one line, the cursor saved, so the next run neither misses nor repeats', async () => {
    const s = sandbox();
    const ids = insertAccounts(s, 6, Math.floor(Date.now() / 1000) - 3600, 'S9hupIn');
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--filter', 'lastname ~ "^S9hupIn "', '--fields', 'ID,lastname', '--page-size', '1', '--interval', '1s', '--cursor-file', cursor];
    const stdout = new LineCapture();
    const processes = signalProcesses();
    const running = run(args, { stdout, processes });
    await stdout.waitLines(2);
    processes.raise('SIGHUP');
    const stopped = await running;
    expect([stopped.code, stopped.stderr]).toEqual([130, 'svc: interrupted by SIGHUP\n']);
    expect(existsSync(`${cursor}.svc-lock`)).toBe(false);
    const resumed = await run([...args, '--once']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([...idsOf(stdout.lines()), ...idsOf(resumed.stdout)]).toEqual(ids);
  });

  it('aborts every long command\'s signal (export, sync, watch share it)', () => {
    const handlers = new Map<string, () => void>();
    const signal = interruptSignal((sig, fn) => void handlers.set(sig, fn), '; kept');
    expect([...handlers.keys()]).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP']);
    handlers.get('SIGHUP')!();
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('interrupted by SIGHUP; kept');
  });
});

describe('a lock file when the process exits on the spot (process.exit: a closed stdout)', () => {
  it('is removed by the exit hooks while held, and not once released (a lock taken since is someone else\'s)', () => {
    const path = join(tempDir(), 'x.svc-lock');
    const refusal = (h: string): string => h;
    acquireLock(path, 'svc test', undefined, () => Date.now(), refusal);
    expect(existsSync(path)).toBe(true);
    runExitHooks();
    expect(existsSync(path)).toBe(false);
    const held = acquireLock(path, 'svc test', undefined, () => Date.now(), refusal);
    held.release();
    writeFileSync(path, 'another process\'s\n');
    runExitHooks();
    expect(existsSync(path)).toBe(true);
  });

  it('one svc cannot read is refused in the caller\'s words', () => {
    const path = join(tempDir(), 'y.svc-lock');
    writeFileSync(path, 'garbage\n');
    expect(() => acquireLock(path, 'svc test', undefined, () => Date.now(), (h) => `held: ${h}`, (lock) => `cannot tell who holds ${lock}`)).toThrow(`cannot tell who holds ${path}`);
    expect(() => acquireLock(path, 'svc test', undefined, () => Date.now(), (h) => `held: ${h}`)).toThrow(/^held: another process; the lock file does not say which/);
  });
});

describe('a page that fails', () => {
  const net = (code: string): NetworkError => new NetworkError(`POST x: ${code}`, code);
  it('is asked again smaller after a server failure, not when the service cannot be reached at all', () => {
    expect(smallerMayHelp(new HttpStatusError(503, 'busy', 'POST', 'x'))).toBe(true);
    expect(smallerMayHelp(new HttpStatusError(429, 'slow down', 'POST', 'x'))).toBe(true);
    expect(smallerMayHelp(new HttpStatusError(400, 'bad', 'POST', 'x'))).toBe(false);
    for (const code of ['SVC_HEADERS_TIMEOUT', 'SVC_BODY_TIMEOUT', 'ECONNRESET', 'UND_ERR_SOCKET', 'SVC_NOT_JSON']) expect(smallerMayHelp(net(code)), code).toBe(true);
    expect(smallerMayHelp(new NetworkError('no code'))).toBe(true);
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'SVC_CONNECT_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
      expect(smallerMayHelp(net(code)), code).toBe(false);
    }
  });
});

describe('watch: a cursor file of a sandbox that came back at another port, and of an older --fields', () => {
  /** A config dir of the test's own with profile 'sb' pointing at the sandbox; `sandboxDir` as `svc sandbox start` records it, unless not. */
  const sandboxProfile = async (url: string, sandboxDir: boolean): Promise<string> => {
    const configDir = tempConfigDir();
    expect((await svc(['profile', 'add', 'sb', '--url', url], { configDir })).code).toBe(0);
    const path = join(configDir, 'config.json');
    const cfg = JSON.parse(readFileSync(path, 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    if (sandboxDir) cfg.profiles.sb = { ...cfg.profiles.sb, sandboxDir: tempDir() };
    writeFileSync(path, JSON.stringify(cfg));
    return configDir;
  };
  const through = (s: { token(u: string): string }, configDir: string, argv: string[]) =>
    svc(['--profile', 'sb', ...argv], { configDir, env: { SVC_URL: undefined, SVC_TOKEN: s.token('demo'), NO_COLOR: '1' } });

  it("through a profile that records its sandbox's data dir: resumed from the old port, re-stamped, said in one line", async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--fields', 'ID,lastname', '--once', '--cursor-file', cursor];
    expect((await run([...args, '--since', 'now'])).code).toBe(0);
    const old = s.instanceUrl.replace(/:\d+\//, ':1/');
    rewrite(cursor, (j) => (j.instance = old));
    const configDir = await sandboxProfile(s.instanceUrl, true);
    const id = await createAccount(s, 'WatchMovedPort');
    const r = await through(s, configDir, args);
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(r.stdout)).toEqual([id]);
    expect(r.stderr).toBe(`svc: the cursor file ${cursor} now names the instance ${s.instanceUrl} (was ${old}): profile 'sb' follows its sandbox\n`);
    expect(readCursor(cursor).instance).toBe(s.instanceUrl);
    const again = await through(s, configDir, args);
    expect(again).toMatchObject({ code: 0, stderr: '' });
  });

  it('any other mismatch stays exit 2: a profile without a sandbox, another instance path, a host that is not loopback', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--once', '--cursor-file', cursor];
    expect((await run([...args, '--since', 'now'])).code).toBe(0);
    const plain = await sandboxProfile(s.instanceUrl, false);
    const withSandbox = await sandboxProfile(s.instanceUrl, true);
    for (const [other, configDir] of [
      [s.instanceUrl.replace(/:\d+\//, ':1/'), plain],
      [s.instanceUrl.replace(/:(\d+)\/demo$/, ':1/other'), withSandbox],
      [s.instanceUrl.replace('127.0.0.1', 'example.com'), withSandbox],
    ] as const) {
      rewrite(cursor, (j) => (j.instance = other));
      const before = JSON.stringify(readCursor(cursor));
      const r = await through(s, configDir, args);
      expect(r.code, other).toBe(2);
      expect(r.stderr).toMatch(/belongs to a watch of the instance/);
      expect(JSON.stringify(readCursor(cursor))).toBe(before);
    }
  });

  it('a file of --fields key=ID (an older svc) resumes with --fields ID, and is re-stamped in that form', async () => {
    const s = sandbox();
    const cursor = join(tempDir(), 'c');
    const args = ['accounts', 'watch', '--fields', 'ID,lastname', '--once', '--cursor-file', cursor];
    expect((await run([...args, '--since', 'now'])).code).toBe(0);
    rewrite(cursor, (j) => ((j.query as Record<string, unknown>).fields = 'id=ID,lastname'));
    const id = await createAccount(s, 'WatchOldFields');
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(r.stdout)).toEqual([id]);
    expect((readCursor(cursor).query as Record<string, unknown>).fields).toBe('ID,lastname');
    // Another field under ID's alias is another watch still.
    rewrite(cursor, (j) => ((j.query as Record<string, unknown>).fields = 'key=ID,firstname'));
    expect((await run(args)).code).toBe(2);
  });
});

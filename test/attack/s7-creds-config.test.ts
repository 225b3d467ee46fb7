/**
 * s7-creds: attack on profiles and the config file (README "Signing in": profiles live in
 * config.json, mode 0600, "URLs and a per-machine login identifier, never a secret"; "Exit codes": an
 * error is one line on stderr naming the problem and the fix).
 *
 * Tests marked FINDING fail on HEAD and pass once the bug is fixed; tests marked HELD check claims
 * that held (they pass now).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, watch, writeFileSync, readdirSync, statSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { svc } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const URL1 = 'http://127.0.0.1:9/demo';
const seed = Number(process.env.SEED ?? Math.floor(Math.random() * 2 ** 31));

function dir(): string {
  return mkdtempSync(join(tmpdir(), 's7-creds-config-'));
}

/** The built svc, spawned as a user's shell or cron would; resolves when it has exited. */
function spawned(configDir: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: configDir, SVC_CONFIG_DIR: configDir, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

function writeConfig(d: string, value: unknown): void {
  writeFileSync(join(d, 'config.json'), typeof value === 'string' ? value : JSON.stringify(value), { mode: 0o600 });
}

/** An error as README "Exit codes" promises it: one line, not svc's own crash. */
function oneLineError(stderr: string): void {
  expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^svc: /);
  expect(stderr).not.toMatch(/unexpected error/);
}

describe('FINDING: concurrent profile writes lose profiles (no lock around conf read-modify-write)', () => {
  it('8 `svc profile add pN` at once: every one says "added", so every one is in config.json', async () => {
    const d = dir();
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => spawned(d, ['profile', 'add', `p${i}`, '--url', URL1]).done));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')) as { profiles: Record<string, unknown> };
    expect(Object.keys(config.profiles).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}`));
  }, 30_000);
});

describe('HELD: a kill -9 in the middle of a config write leaves config.json whole (conf writes through a temporary file and a rename)', () => {
  it(`SIGKILL the moment the temporary file appears: config.json is valid JSON, the old state or the new (seed ${seed})`, async () => {
    const random = createRandom(seed);
    for (let round = 0; round < 3; round++) {
      const d = dir();
      // A large config, so that the write takes long enough to be cut.
      const profiles: Record<string, unknown> = {};
      for (let i = 0; i < 20_000; i++) profiles[`old${i}`] = { url: URL1, identifier: `svc-x-${i}` };
      const before = { profiles, current: 'old0' };
      writeConfig(d, before);
      const name = `new${random.int(0, 999)}`;
      const { child, done } = spawned(d, ['profile', 'add', name, '--url', URL1]);
      const w = watch(d, (_ev, file) => {
        if (file && file !== 'config.json' && file.startsWith('config.json')) {
          child.kill('SIGKILL');
          w.close();
        }
      });
      const r = await done;
      w.close();
      if (process.env.S7_DEBUG) console.log(`round ${round}: ${r.signal ?? r.code}; files ${readdirSync(d).join(',')}`);
      const after = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')) as { profiles: Record<string, unknown> };
      if (r.signal === 'SIGKILL') expect(Object.keys(after.profiles).length === 20_000 || Object.hasOwn(after.profiles, name), `seed ${seed}`).toBe(true);
      else expect(Object.hasOwn(after.profiles, name)).toBe(true);
    }
  }, 60_000);
});

describe('FINDING: a config.json svc cannot read or write is "unexpected error", not a one-line error naming the file', () => {
  it('config.json is a directory: `svc profile list` names the file (today: "unexpected error: EISDIR")', async () => {
    const d = dir();
    mkdirSync(join(d, 'config.json'));
    const r = await svc(['profile', 'list'], { configDir: d });
    expect(r.code).not.toBe(0);
    oneLineError(r.stderr);
    expect(r.stderr).toContain(join(d, 'config.json'));
  });

  it('the config dir is under a file: `svc profile add` names the file it cannot write (today: "unexpected error: ENOTDIR")', async () => {
    const d = dir();
    writeFileSync(join(d, 'plainfile'), 'x');
    const r = await svc(['profile', 'add', 'a', '--url', URL1], { configDir: join(d, 'plainfile', 'svc') });
    expect(r.code).not.toBe(0);
    oneLineError(r.stderr);
    expect(r.stderr).toContain(join(d, 'plainfile', 'svc'));
  });

  it('a config nested 100,000 deep (svc reads it fine): `svc profile add` is not "unexpected error: Maximum call stack size exceeded"', async () => {
    const d = dir();
    writeConfig(d, `{"profiles":{},"junk":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const list = await svc(['profile', 'list'], { configDir: d });
    expect(list.code).toBe(0);
    const r = await svc(['profile', 'add', 'a', '--url', URL1], { configDir: d });
    if (r.code !== 0) oneLineError(r.stderr);
    expect(r.stderr).not.toMatch(/Maximum call stack/);
  });
});

describe('FINDING: profiles of the wrong type in config.json are shown as nonsense instead of being named', () => {
  it('a profile that is a string: `svc profile list` lists its characters as columns "0", "1", …', async () => {
    const d = dir();
    writeConfig(d, { profiles: { a: 'https://erp.example.com/acme' }, current: 'a' });
    const r = await svc(['profile', 'list', '-o', 'json'], { configDir: d });
    expect(r.stdout).not.toContain('"0": "h"');
  });

  it('a profile that is null: the message does not say "no profile \'a\'; did you mean \'a\'?"', async () => {
    const d = dir();
    writeConfig(d, { profiles: { a: null }, current: 'a' });
    const r = await svc(['profile', 'show'], { configDir: d });
    expect(r.stderr).not.toContain("no profile 'a'; did you mean 'a'?");
  });

  it('a profile without a url: the error names the profile and config.json, not "invalid instance URL \'undefined\'; give one like …"', async () => {
    const d = dir();
    writeConfig(d, { profiles: { a: { identifier: 'x' } }, current: 'a' });
    const r = await svc(['accounts', 'count'], { configDir: d, env: { SVC_TOKEN: 'abc' } });
    expect(r.code).toBe(2);
    oneLineError(r.stderr);
    expect(r.stderr).not.toContain("'undefined'");
    expect(r.stderr).toContain('config.json');
    expect(r.stderr).toMatch(/'a'/);
  });
});

describe('FINDING: an empty SVC_PROFILE is a profile named "" (SVC_URL="", SVC_TOKEN="" and SVC_TOKEN_FILE="" count as unset)', () => {
  it('SVC_PROFILE= with a current profile: `svc profile show` shows the current one', async () => {
    const d = dir();
    writeConfig(d, { profiles: { a: { url: URL1, identifier: 'x' } }, current: 'a' });
    const r = await svc(['profile', 'show', '-o', 'json'], { configDir: d, env: { SVC_PROFILE: '' } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'a' });
  });

  it("SVC_PROFILE= : never suggests the broken command 'svc profile add  --url URL'", async () => {
    const d = dir();
    writeConfig(d, { profiles: { a: { url: URL1, identifier: 'x' } }, current: 'a' });
    const r = await svc(['auth', 'status'], { configDir: d, env: { SVC_PROFILE: '' } });
    expect(r.stderr).not.toContain("svc profile add  --url");
    expect(r.stderr).not.toContain("no profile ''");
  });
});

describe('FINDING: profile names from the command line and SVC_PROFILE reach the terminal raw (src/util/shown.ts exists for this)', () => {
  const ESC = '\u001b]0;pwned\u0007\u001b[2J';
  it('--profile with escape sequences: the error carries no control character', async () => {
    const d = dir();
    const r = await svc(['--profile', `x${ESC}`, 'whoami'], { configDir: d });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('SVC_PROFILE with escape sequences: the error carries no control character', async () => {
    const d = dir();
    const r = await svc(['auth', 'status'], { configDir: d, env: { SVC_PROFILE: `x${ESC}` } });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('`svc profile add` of a name with escape sequences: the refusal carries no control character', async () => {
    const d = dir();
    const r = await svc(['profile', 'add', `a${ESC}`, '--url', URL1], { configDir: d });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it("--profile ../etc: the fix offered is not 'svc profile add ../etc --url URL', which svc refuses", async () => {
    const d = dir();
    const r = await svc(['--profile', '../etc', 'whoami'], { configDir: d });
    expect(r.code).toBe(2);
    const offered = /'(svc profile add [^']*)'/.exec(r.stderr)?.[1];
    if (offered) {
      const tried = await svc(offered.replace('URL', URL1).split(' ').slice(1), { configDir: d });
      expect(tried.code, `the message offers '${offered}', which answers: ${tried.stderr}`).toBe(0);
    }
  });
});

describe('FINDING: updating the current profile tells the user to switch to it', () => {
  it('`svc profile add prod --url …` on the current profile does not say "use it with --profile prod or \'svc profile use prod\'"', async () => {
    const d = dir();
    expect((await svc(['profile', 'add', 'prod', '--url', URL1], { configDir: d })).code).toBe(0);
    const r = await svc(['profile', 'add', 'prod', '--url', 'http://127.0.0.1:9/other'], { configDir: d });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')).current).toBe('prod');
    expect(r.stderr).not.toContain("use it with --profile prod or 'svc profile use prod'");
  });
});

describe('HELD: hostile but readable config files', () => {
  it('"__proto__" and "constructor" keys are data: no profile appears from the prototype, and a write keeps the file valid', async () => {
    const d = dir();
    writeConfig(d, `{"__proto__":{"profiles":{"evil":{"url":"http://127.0.0.1:1/x"}},"current":"evil"},"profiles":{"constructor":{"url":"${URL1}","identifier":"c"}}}`);
    const list = await svc(['profile', 'list', '-o', 'json'], { configDir: d });
    expect((JSON.parse(list.stdout) as { name: string }[]).map((p) => p.name)).toEqual(['constructor']);
    const show = await svc(['profile', 'show'], { configDir: d });
    expect(show.code).toBe(2);
    expect(show.stderr).toMatch(/no profile chosen/);
    const add = await svc(['profile', 'add', 'z', '--url', URL1], { configDir: d });
    expect(add.code).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')).profiles).toHaveProperty('z');
  });

  it('invalid JSON: one line naming the file and the fix, exit 2', async () => {
    const d = dir();
    writeConfig(d, '{"profiles":');
    const r = await svc(['profile', 'list'], { configDir: d });
    expect(r.code).toBe(2);
    oneLineError(r.stderr);
    expect(r.stderr).toContain('fix it, or remove it');
  });

  it('a symlinked config.json (dotfiles): the link stays a link, the target gets the change at mode 0600', async () => {
    const d = dir();
    const dot = dir();
    writeFileSync(join(dot, 'config.json'), '{"profiles":{}}', { mode: 0o644 });
    symlinkSync(join(dot, 'config.json'), join(d, 'config.json'));
    const r = await svc(['profile', 'add', 'a', '--url', URL1], { configDir: d });
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(d, 'config.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dot, 'config.json'), 'utf8')).profiles).toHaveProperty('a');
    expect(statSync(join(dot, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('profile names with path separators, "..", or control characters are refused by `profile add` (exit 2); command words are fine', async () => {
    const d = dir();
    for (const bad of ['a/b', '../x', '..', 'a\nb', '']) {
      const r = await svc(['profile', 'add', bad, '--url', URL1], { configDir: d });
      expect(r.code, bad).toBe(2);
    }
    for (const word of ['help', 'list', 'login']) expect((await svc(['profile', 'add', word, '--url', URL1], { configDir: d })).code).toBe(0);
    const show = await svc(['profile', 'show', 'help', '-o', 'json'], { configDir: d });
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'help' });
    expect(readdirSync(d).sort()).toEqual(['config.json']);
  });

  it("--profile naming a missing profile: exit 2, names 'svc profile list' and how to add it", async () => {
    const d = dir();
    writeConfig(d, { profiles: { prod: { url: URL1, identifier: 'x' } }, current: 'prod' });
    const r = await svc(['--profile', 'prdo', 'whoami'], { configDir: d });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("svc: no profile 'prdo'; did you mean 'prod'? (see 'svc profile list', or add it with 'svc profile add prdo --url URL')\n");
  });
});

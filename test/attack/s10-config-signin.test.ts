/**
 * s10-config: sign-ins that stop half-way, as a user meets them (README "Signing in": `svc logout`
 * "removes the token from both, so a switch of store never leaves a token in plain text or one that logout
 * missed"; credentials.insecure.json is 0600). The built svc is spawned as a shell runs it, against a real
 * sandbox of this file's own (one with faults for the interruption trials), and interrupted at the moment an
 * event shows: the plain file appearing with the process's token in it, or its temporary file appearing.
 *
 * FINDING tests fail on HEAD and pass once fixed; HELD tests pass now. Seeds are printed in test names
 * (replay with S10_SEED=<n>).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, readFileSync, readdirSync, statSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/util/random.js';
import { startTestSandbox, useTestSandbox } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const seed = Number(process.env.S10_SEED ?? Math.floor(Math.random() * 2 ** 31));
const s = useTestSandbox({ record: true });
const PLAIN = 'credentials.insecure.json';

function dir(): string {
  return mkdtempSync(join(tmpdir(), 's10-config-signin-'));
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The built svc; `shell` runs first in sh (umask). No D-Bus: the keychain is out of reach, as on a server. */
function spawned(configDir: string, args: string[], opts: { env?: Record<string, string>; stdin?: string; shell?: string } = {}) {
  const bin = join(root, 'bin', 'svc.js');
  const [cmd, argv] = opts.shell ? ['sh', ['-c', `${opts.shell}; exec "$0" "$@"`, process.execPath, bin, ...args]] : [process.execPath, [bin, ...args]];
  const child = spawn(cmd as string, argv as string[], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: configDir, SVC_CONFIG_DIR: configDir, NO_COLOR: '1', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(opts.stdin ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const done = new Promise<Ran>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, done };
}

function plain(d: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(join(d, PLAIN), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Every file under the config dir whose bytes hold `needle`. */
function filesHolding(d: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (p: string): void => {
    for (const name of readdirSync(p)) {
      const f = join(p, name);
      const st = statSync(f);
      if (st.isDirectory()) walk(f);
      else if (st.isFile() && readFileSync(f).includes(needle)) found.push(name);
    }
  };
  walk(d);
  return found;
}

type SB = Pick<typeof s, 'instanceUrl' | 'user' | 'sandbox'>;
const appsecretOf = (sb: SB): string => sb.sandbox.credentials.demo?.applications.find((a) => a.identifier === 'svc-cli')?.appsecret ?? '';
const login = (sb: SB, d: string, profile: string, extra: string[] = []) =>
  spawned(d, ['--profile', profile, 'login', '--user', 'demo', '--password-stdin', '--insecure-storage', ...extra], { env: { SVC_APPSECRET: appsecretOf(sb) }, stdin: sb.user('demo').password });

describe('FINDING: `svc login` to a profile whose name a hand edit gave it signs in at the service, keeps the token in plain text, then fails', () => {
  // config.json with a profile "my prod" (a space: `profile add` refuses the name, but every reading command
  // takes it). Today: POST /auth/v1/login is sent and answered, the token is written to credentials.insecure.json,
  // and only then profiles.save() refuses the name: exit 2 "invalid profile name 'my prod'". The profile never
  // learns insecureStorage, so whoami says "not signed in" and logout "nothing to do", and the live token stays
  // in the plain file until someone finds it.
  it("either the login works (whoami exit 0), or it is refused before anything is sent and nothing is kept; logout never leaves the token in the plain file", async () => {
    const d = dir();
    writeFileSync(join(d, 'config.json'), JSON.stringify({ current: 'my prod', profiles: { 'my prod': { url: s.instanceUrl, identifier: 'svc-s10-1' } } }), { mode: 0o600 });
    const r = await spawned(d, ['login', '--user', 'demo', '--password-stdin', '--insecure-storage'], { env: { SVC_APPSECRET: appsecretOf(s) }, stdin: s.user('demo').password }).done;
    const sent = s.sandbox.hooks.requests.filter((q) => q.url.includes('/auth/v1/login'));
    if (r.code === 0) {
      const who = await spawned(d, ['whoami']).done;
      expect(who.code, who.stderr).toBe(0);
    } else {
      expect(r.code, r.stderr).toBe(2);
      expect(sent, `a login was sent before the refusal: ${r.stderr}`).toHaveLength(0);
      expect(Object.keys(plain(d)), r.stderr).toEqual([]);
    }
    const out = await spawned(d, ['logout']).done;
    expect(out.code, out.stderr).toBe(0);
    expect(Object.keys(plain(d)).filter((k) => k.endsWith('/token')), `after logout: ${out.stderr}`).toEqual([]);
  });
});

describe('FINDING: a login interrupted after it stored the token, before it saved the profile, leaves a token in plain text that logout misses', () => {
  // runLogin writes the token to credentials.insecure.json, then the application secret and the other store,
  // and only then saves `insecureStorage: true` in the profile (loading conf on the way: tens of ms). Ctrl-C,
  // SIGTERM (exit 130 at once: login has no handler) or SIGKILL there leaves a profile that does not read the
  // plain file: whoami "not signed in", logout "not signed in …; nothing to do", and a live token in plain text.
  for (const concurrency of [1, 4]) {
    it(`concurrency ${concurrency}, 10% faults, a seeded signal each the moment its token lands (seed ${seed})`, async () => {
      const random = createRandom(seed + concurrency);
      const sb = await startTestSandbox();
      sb.sandbox.hooks.setFaultRate(0.1, seed);
      try {
        const names = Array.from({ length: concurrency }, (_, i) => `p${i}`);
        const signals = names.map(() => (['SIGINT', 'SIGTERM', 'SIGKILL'] as const)[random.int(0, 2)] ?? 'SIGKILL');
        let d = '';
        let tally = '';
        let sent = new Set<number>();
        // A login the faults failed before it stored anything is not what this test is about: try again (at most 5 times).
        for (let attempt = 0; attempt < 5 && sent.size === 0; attempt++) {
          d = dir();
          writeFileSync(join(d, 'config.json'), JSON.stringify({ profiles: Object.fromEntries(names.map((n) => [n, { url: sb.instanceUrl, identifier: `svc-s10-${n}` }])) }), { mode: 0o600 });
          const runs = names.map((n) => login(sb, d, n));
          const signalled = new Set<number>();
          sent = signalled;
          const onEvent = (): void => {
            const data = plain(d);
            names.forEach((n, i) => {
              if (!signalled.has(i) && data[`profile:${n}/token`] !== undefined) {
                signalled.add(i);
                runs[i]?.child.kill(signals[i]);
              }
            });
          };
          const w = watch(d, (_e, f) => f === PLAIN && onEvent());
          const ended = await Promise.all(runs.map((r) => r.done));
          w.close();
          tally = `attempt ${attempt}: ${ended.map((r, i) => `${names[i]}: ${signalled.has(i) ? signals[i] : 'not signalled'} → ${r.signal ?? r.code}`).join('; ')}`;
        }
        expect(sent.size, `no login got as far as storing its token (${tally})`).toBeGreaterThan(0);
        for (const n of names) {
          const who = await spawned(d, ['--profile', n, 'whoami']).done;
          const kept = plain(d)[`profile:${n}/token`] !== undefined;
          // Consistent: a token svc keeps is one svc uses.
          expect(who.code === 0 || !kept, `${n} (${tally}): the plain file keeps its token, but whoami says: ${who.stderr}`).toBe(true);
          const out = await spawned(d, ['--profile', n, 'logout']).done;
          expect(out.code, out.stderr).toBe(0);
          expect(plain(d)[`profile:${n}/token`], `${n} (${tally}) after logout ("${out.stderr.trim()}")`).toBeUndefined();
        }
        // Converges: a new login and a logout work for every profile.
        sb.sandbox.hooks.setFaultRate(0);
        for (const n of names) {
          const again = await login(sb, d, n).done;
          expect(again.code, again.stderr).toBe(0);
        }
      } finally {
        await sb.close();
      }
    }, 60_000);
  }
});

describe('FINDING: a kill -9 while the plain file is rewritten leaves a copy of the token beside it that logout never removes', () => {
  // write() (src/auth/plain-file.ts) writes credentials.insecure.json.<random>.tmp and renames it; nothing ever
  // sweeps a temporary file a killed svc left. The window is widened here with a large plain file (another
  // entry of 30 MB), so the kill lands inside it: the event is the first change of the temporary file.
  it('SIGKILL while the temporary file is written (its first change event); after `svc logout` and `svc profile remove`, no file in the config dir holds the token', async () => {
    let d = '';
    let leftovers: string[] = [];
    let outcome = '';
    // The kill can land just after the rename (nothing left: the claim holds that time); up to 3 tries for one inside.
    for (let attempt = 0; attempt < 3 && leftovers.length === 0; attempt++) {
      d = dir();
      // A second sign-in of p (its entry first in the file, so the new token is among the first bytes written).
      writeFileSync(join(d, 'config.json'), JSON.stringify({ profiles: { p: { url: s.instanceUrl, identifier: 'svc-s10-tmp', insecureStorage: true, user: 'demo' } } }), { mode: 0o600 });
      writeFileSync(join(d, PLAIN), JSON.stringify({ 'profile:p/token': 'tok_before', 'profile:big/appsecret': 'y'.repeat(30 * 1024 * 1024) }), { mode: 0o600 });
      const run = login(s, d, 'p');
      let killed = false;
      const w = watch(d, (e, f) => {
        if (f && f.startsWith(`${PLAIN}.`) && f.endsWith('.tmp') && !killed && e === 'change') {
          killed = true;
          run.child.kill('SIGKILL');
        }
      });
      const r = await run.done;
      w.close();
      expect(killed, `the temporary file was never seen (${r.signal ?? r.code}: ${r.stderr})`).toBe(true);
      leftovers = readdirSync(d).filter((f) => f.endsWith('.tmp'));
      outcome = `attempt ${attempt}: ${leftovers.map((f) => `${f} ${statSync(join(d, f)).size} bytes`).join(', ') || 'nothing left'}`;
      if (process.env.S10_DEBUG) console.log(outcome);
      if (leftovers.length === 0) rmSync(d, { recursive: true, force: true });
    }
    // Whatever the kill left, the user's way out must remove it.
    await spawned(d, ['--profile', 'p', 'logout']).done;
    await spawned(d, ['profile', 'remove', 'p']).done;
    const holding = filesHolding(d, 'profile:p/token');
    rmSync(d, { recursive: true, force: true });
    expect(holding, `left by the kill: ${outcome}`).toEqual([]);
  }, 40_000);
});

describe('HELD: the plain file is private from its creation', () => {
  it('umask 000: a login with --insecure-storage creates credentials.insecure.json at 0600 in a 0700 config dir, and logout removes it', async () => {
    const d = join(dir(), 'new', 'svc');
    const add = await spawned(d, ['profile', 'add', 'p', '--url', s.instanceUrl], { shell: 'umask 000' }).done;
    expect(add.code, add.stderr).toBe(0);
    const r = await spawned(d, ['--profile', 'p', 'login', '--user', 'demo', '--password-stdin', '--insecure-storage'], {
      env: { SVC_APPSECRET: appsecretOf(s) },
      stdin: s.user('demo').password,
      shell: 'umask 000',
    }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(statSync(join(d, PLAIN)).mode & 0o777).toBe(0o600);
    expect(statSync(join(d, 'config.json')).mode & 0o777).toBe(0o600);
    const who = await spawned(d, ['--profile', 'p', 'whoami']).done;
    expect(who.code, who.stderr).toBe(0);
    const out = await spawned(d, ['--profile', 'p', 'logout']).done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(join(d, PLAIN))).toBe(false);
    expect(readdirSync(d).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual([]);
  });
});

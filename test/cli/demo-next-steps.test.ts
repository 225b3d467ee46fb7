/**
 * The next steps `npm run demo` prints (scripts/demo.mjs nextSteps) run as
 * printed from a clone, where svc is not on the PATH: each is `npx svc …`,
 * spawned through a shell in the repository with a home of its own. Two
 * things a script cannot do as a person does are added, and only those: the
 * sandbox gets `--port 0` (8642 may be taken on this machine), and the login,
 * which asks on a terminal, gets the password on stdin (`--password-stdin`)
 * and, without a keychain, the application secret in SVC_APPSECRET. Needs
 * `npm run build` (npx runs bin/svc.js, which loads dist/).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { keychainAvailable } from '../helpers/keychain.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'svc-next-steps-'));
const hasKeychain = await keychainAvailable();
// A module path in a variable: the demo is a script (JavaScript), imported without running it.
const demoPath = join(root, 'scripts', 'demo.mjs');
const { nextSteps } = (await import(demoPath)) as { nextSteps: (o: { keychain: boolean }) => string[] };

/** A person's shell on this machine: no svc on the PATH, a home (and so a config and sandbox) of its own. */
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  SVC_KEYCHAIN_SERVICE: `svc-test-${randomBytes(4).toString('hex')}`,
  NPM_CONFIG_UPDATE_NOTIFIER: 'false',
  ...(process.env.DBUS_SESSION_BUS_ADDRESS ? { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS } : {}),
};

function shell(line: string, opts: { input?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('sh', ['-c', line], { cwd: root, env: { ...env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(opts.input ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

afterAll(async () => {
  await shell(`node bin/svc.js sandbox stop`);
  rmSync(home, { recursive: true, force: true });
});

describe("the demo's next steps", () => {
  it('say how to run svc from the clone: npx, or npm link', () => {
    for (const keychain of [true, false]) {
      const [intro, ...steps] = nextSteps({ keychain });
      expect(intro).toContain('npx svc');
      expect(intro).toContain('npm link');
      expect(steps.length).toBeGreaterThan(3);
      for (const step of steps) expect(step).toMatch(/^ {2}npx svc \S/);
    }
    expect(nextSteps({ keychain: false }).join('\n')).toContain('--insecure-storage');
    expect(nextSteps({ keychain: true }).join('\n')).not.toContain('--insecure-storage');
  });

  it(`run as printed from the repository (${hasKeychain ? 'with' : 'without'} a keychain)`, async () => {
    const commands = nextSteps({ keychain: hasKeychain })
      .slice(1)
      .map((line) => line.replace(/\s{2,}#.*$/, '').trim());
    let credentials: { password: string; appsecret: string } | undefined;
    for (const command of commands) {
      if (/^npx svc sandbox start$/.test(command)) {
        const r = await shell(`${command} --port 0`);
        expect(r.code, `${command}: ${r.stderr}`).toBe(0);
        credentials = JSON.parse(r.stdout) as { password: string; appsecret: string };
        expect(r.stderr).toContain("profile 'sandbox' points at it");
      } else if (/^npx svc login /.test(command)) {
        const r = await shell(`${command} --password-stdin`, { input: credentials?.password ?? '', env: hasKeychain ? {} : { SVC_APPSECRET: credentials?.appsecret ?? '' } });
        expect(r.code, `${command}: ${r.stderr}`).toBe(0);
        expect(r.stderr).toMatch(/^signed in to sandbox as demo/m);
      } else if (/^npx svc accounts query /.test(command)) {
        const r = await shell(command);
        expect(r.code, `${command}: ${r.stderr}`).toBe(0);
        const rows = JSON.parse(r.stdout) as { type: number }[];
        expect(rows).toHaveLength(5);
        expect(rows.every((row) => row.type === 1)).toBe(true);
      } else {
        const r = await shell(command);
        expect(r.code, `${command}: ${r.stderr}`).toBe(0);
        if (command === 'npx svc help') expect(r.stdout).toContain('Help topics (svc help <topic>):');
      }
    }
    expect(commands).toContain('npx svc sandbox stop');
  });

  it('npx --no-install svc answers in the repository without a build step of its own', async () => {
    const r = await shell('npx --no-install svc --version');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

/**
 * s9-readme: README § Development, "Packaging": "better-sqlite3 and re2 compile
 * from source on install (about two minutes here); they serve only `svc
 * sandbox`, so `--ignore-scripts` gives a client-only install in seconds (`svc
 * sandbox start` then fails to load its database)."
 *
 * better-sqlite3 also serves `svc <family> sync --into FILE.sqlite` and `svc
 * sync --status` ("Sync targets: better-sqlite3 and @duckdb/node-api"). A
 * client-only install is made here as npm --ignore-scripts leaves it: the
 * package's files (bin/, dist/, package.json) in a folder of their own, every
 * dependency linked from this checkout except better-sqlite3, which is copied
 * without its compiled build/ (what an install that skips its build script
 * holds). Then the built svc runs from there, as a user of that install does.
 *
 * Tests named "HELD: …" are claims that held; the others fail today.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const s = useTestSandbox();
const temp = mkdtempSync(join(tmpdir(), 'svc-s9-install-'));
const prefix = join(temp, 'svc');

beforeAll(() => {
  mkdirSync(join(prefix, 'node_modules'), { recursive: true });
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(prefix, part), { recursive: true, filter: (f) => !f.endsWith('.map') });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === 'better-sqlite3' || name === 're2' || name === '.bin') continue;
    symlinkSync(join(root, 'node_modules', name), join(prefix, 'node_modules', name));
  }
  // better-sqlite3 as `npm install --ignore-scripts` leaves it: its JavaScript, no compiled binding.
  const pkg = join(root, 'node_modules', 'better-sqlite3');
  for (const part of ['package.json', 'lib']) cpSync(join(pkg, part), join(prefix, 'node_modules', 'better-sqlite3', part), { recursive: true });
});

afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The client-only install's svc, run in `cwd` with a HOME of its own and the test sandbox's URL and token. */
function installed(args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(prefix, 'bin', 'svc.js'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, SVC_CONFIG_DIR: join(cwd, 'config'), SVC_URL: s.instanceUrl, SVC_TOKEN: s.token('demo'), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a client-only install (npm install --ignore-scripts: no compiled better-sqlite3)', () => {
  it('HELD: the client works: describe, count, and a sync into DuckDB (its prebuilt binding is in its registry package)', async () => {
    const cwd = mkdtempSync(join(temp, 'run-'));
    expect((await installed(['describe', 'accounts', '-o', 'json'], cwd)).code).toBe(0);
    const count = await installed(['accounts', 'count', '--jq', '.count'], cwd);
    expect(count.code, count.stderr).toBe(0);
    const duck = await installed(['accounts', 'sync', '--into', 'copy.duckdb', '--fields', 'ID,lastname', '-o', 'json'], cwd);
    expect(duck.code, duck.stderr).toBe(0);
  });

  it('svc accounts sync --into copy.sqlite: the error names the missing native module and its fix, not the file (today: "copy.sqlite is not a SQLite database svc can use (Could not locate the bindings file. Tried:); … give another --into file")', async () => {
    const cwd = mkdtempSync(join(temp, 'run-'));
    const r = await installed(['accounts', 'sync', '--into', 'copy.sqlite'], cwd);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
    // The file does not even exist: it is not "not a SQLite database", and another --into file fails the same way.
    expect(existsSync(join(cwd, 'copy.sqlite'))).toBe(false);
    expect(r.stderr).not.toMatch(/is not a SQLite database|give another --into/);
    expect(r.stderr).toMatch(/better-sqlite3/);
    expect(r.stderr).toMatch(/npm rebuild|--ignore-scripts|reinstall|\.duckdb/);
  });

  it('svc sync --into copy.sqlite --status on a copy another install made: not "not a SQLite database svc can use"', async () => {
    const cwd = mkdtempSync(join(temp, 'run-'));
    // The copy is made by this checkout's svc (better-sqlite3 compiled), as on the machine that ran the sync.
    const made = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'accounts', 'sync', '--into', 'copy.sqlite', '--fields', 'ID'], {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: cwd, SVC_CONFIG_DIR: join(cwd, 'config'), SVC_URL: s.instanceUrl, SVC_TOKEN: s.token('demo') },
        stdio: 'ignore',
      });
      child.on('close', resolve);
    });
    expect(made).toBe(0);
    const r = await installed(['sync', '--into', 'copy.sqlite', '--status'], cwd);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/is not a SQLite database|give another --into/);
    expect(r.stderr).toMatch(/better-sqlite3/);
  });

  it('svc sandbox start --foreground fails to load its database, as the README says, in one line naming the module: not "unexpected error" and a list of paths cut off', async () => {
    const cwd = mkdtempSync(join(temp, 'run-'));
    const r = await installed(['sandbox', 'start', '--foreground', '--port', '0', '--data-dir', join(cwd, 'data')], cwd);
    expect(r.code).toBe(1);
    // Today: "svc: unexpected error: Could not locate the bindings file. Tried:? → …/build/better_sqlite3.node? → … (set SVC_DEBUG=1 for details)".
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).toMatch(/better-sqlite3/);
  });

  it('README: the Packaging paragraph does not say better-sqlite3 serves only `svc sandbox` (it serves SQLite sync targets too)', () => {
    const packaging = readme.slice(readme.indexOf('**Packaging.**'), readme.indexOf('**The vendor documents.**'));
    expect(packaging).toContain('--ignore-scripts');
    const sentence = packaging.slice(packaging.indexOf('better-sqlite3 and re2'), packaging.indexOf('`test/e2e/pack.test.ts`'));
    expect(sentence, sentence).toMatch(/sync/);
  });
});

/**
 * The package as npm ships it: `npm pack` on a tree without dist/ (a fresh
 * clone) builds it first (the prepack script) and packs the bundle, the
 * completions and the LICENSE, no source maps and no sources; the tarball
 * installs into a prefix of its own and its svc runs. The tree packed is a
 * copy of this one (without dist/, node_modules linked), so the build of the
 * pack never touches the dist/ the other tests run. The install skips the
 * native modules' builds (--ignore-scripts: better-sqlite3 and re2, which
 * compile for minutes, serve only `svc sandbox`) and takes packages from
 * npm's cache when it has them.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const temp = mkdtempSync(join(tmpdir(), 'svc-pack-'));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a command run by hand: none of the npm_* variables `npm test` sets (they would point npm at this tree). */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0])));
}

/** Runs a command to its end, asynchronously (a timeout kills it). */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Ran> {
  const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** This tree as a fresh clone has it: no dist/, no node_modules (linked to this one's, as `npm ci` would fill it). */
function copyOfTree(): string {
  const copy = join(temp, 'clone');
  const left = new Set(['node_modules', '.git', 'dist', 'coverage', 'test-artifacts']);
  cpSync(root, copy, {
    recursive: true,
    filter: (source) => {
      const rel = relative(root, source);
      return !left.has(rel.split(sep)[0] ?? '') && !rel.endsWith('.tgz');
    },
  });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

interface Packed {
  readonly tarball: string;
  readonly files: readonly string[];
  readonly distBefore: boolean;
  readonly seconds: number;
}

let packed: Packed;
let prefix = '';
let installSeconds = 0;
let ourDist: { mtimeMs: number } | undefined;

beforeAll(async () => {
  ourDist = existsSync(join(root, 'dist', 'svc.cjs')) ? statSync(join(root, 'dist', 'svc.cjs')) : undefined;
  const clone = copyOfTree();
  const distBefore = existsSync(join(clone, 'dist'));
  const out = join(temp, 'out');
  mkdirSync(out);
  let t = Date.now();
  const pack = await run('npm', ['pack', '--json', '--pack-destination', out], clone, 90_000);
  expect(pack.code, `npm pack failed: ${pack.stderr}`).toBe(0);
  const seconds = (Date.now() - t) / 1000;
  const [result] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  packed = { tarball: join(out, result.filename), files: result.files.map((f) => f.path).sort(), distBefore, seconds };
  prefix = join(temp, 'prefix');
  t = Date.now();
  const install = await run('npm', ['install', '--global', '--prefix', prefix, packed.tarball, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], temp, 150_000);
  expect(install.code, `npm install of the tarball failed: ${install.stderr}`).toBe(0);
  installSeconds = (Date.now() - t) / 1000;
}, 240_000);

afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

describe('npm pack on a fresh clone', () => {
  it('builds dist/ first and packs the bundle, completions and LICENSE: no source maps, no sources', () => {
    expect(packed.distBefore).toBe(false);
    const files = packed.files;
    for (const f of ['LICENSE', 'README.md', 'package.json', 'bin/svc.js', 'bin/package.json', 'dist/svc.cjs', 'dist/svc.cjs.cache', 'dist/help.cjs', 'dist/help.cjs.cache', 'dist/sandbox.cjs', 'dist/catalogue.json', 'completions/svc.bash']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => !/^(bin|dist|completions)\//.test(f) && !['LICENSE', 'README.md', 'package.json'].includes(f))).toEqual([]);
    console.log(`npm pack (with its build) took ${packed.seconds.toFixed(1)} s; the install of the tarball ${installSeconds.toFixed(1)} s`);
  });

  it('left the dist/ of this tree, which the other tests run, as it was', () => {
    const now = existsSync(join(root, 'dist', 'svc.cjs')) ? statSync(join(root, 'dist', 'svc.cjs')) : undefined;
    expect(now?.mtimeMs).toBe(ourDist?.mtimeMs);
  });
});

describe('the installed package', () => {
  const svc = (...args: string[]) => run(join(prefix, 'bin', 'svc'), args, temp, 20_000);

  it('runs svc from the prefix: --version, describe, version', async () => {
    expect(await svc('--version')).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const described = await svc('describe', 'accounts', '-o', 'json');
    expect(described.code, described.stderr).toBe(0);
    expect((JSON.parse(described.stdout) as { name: string }).name).toBe('accounts');
    const version = await svc('version', '-o', 'json');
    expect(version.code, version.stderr).toBe(0);
    // The copy packed is no git checkout: the build names no commit.
    expect(JSON.parse(version.stdout)).toEqual({ version: pkg.version, commit: 'unknown', node: process.version, platform: process.platform, arch: process.arch });
    expect((await svc('--version', '--verbose')).stdout).toBe(version.stdout);
  });

  it('carries the MIT licence its package.json names', () => {
    const dir = join(prefix, 'lib', 'node_modules', pkg.name);
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the svc authors\n/);
    expect((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { license: string }).license).toBe('MIT');
  });
});

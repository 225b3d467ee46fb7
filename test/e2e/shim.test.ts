/**
 * bin/svc.js, the shim that loads a bundle through its V8 code cache: a
 * cache that is damaged, missing, or made for another bundle must change
 * nothing a user sees (V8 itself checks only the source's length, and may
 * crash on damaged data), and `--version`, answered by the shim, must fail
 * in words like any other output. Help runs in the help build (dist/help.cjs,
 * src/cli/help-build.ts), which hands a line it cannot finish to the whole
 * program without having printed anything.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
let copy = '';

/** A copy of the installed svc (bin, dist, package.json) whose files a test may damage. */
beforeAll(() => {
  for (const cache of ['svc.cjs.cache', 'help.cjs', 'help.cjs.cache']) expect(existsSync(join(root, 'dist', cache)), `dist/${cache} is missing: run \`npm run build\``).toBe(true);
  copy = mkdtempSync(join(tmpdir(), 'svc-shim-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(copy, part), { recursive: true });
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const pick = (r: { status: number | null; stdout: string }) => ({ status: r.status, stdout: r.stdout });
const svc = (args: string[], shell?: string, env: Record<string, string> = {}) =>
  spawnSync(shell ? 'sh' : process.execPath, shell ? ['-c', shell] : [join(copy, 'bin', 'svc.js'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: copy, SVC_CONFIG_DIR: join(copy, 'config'), ...env },
  });

// The shim checks the cache's CRC-32 through zlib's native binding, or through node:zlib where the
// binding would print a deprecation warning: both ways must accept the good cache and refuse the rest.
const checks = [
  ['the native binding', {}],
  ['node:zlib (pending deprecations on)', { NODE_PENDING_DEPRECATION: '1' }],
] as const;

describe('the shim and its code cache', () => {
  // Help has a cache of its own; every other command line the other.
  it.each(([
    ['help.cjs.cache', ['--help']],
    ['svc.cjs.cache', ['describe', 'accounts']],
  ] as const).flatMap(([name, argv]) => checks.map(([how, env]) => [name, how, argv, env] as const)))('answers the same with a damaged, empty, missing or foreign %s as with its own (checked by %s)', (name, _how, argv, env) => {
    const cacheFile = join(copy, 'dist', name);
    const good = readFileSync(cacheFile);
    const expected = svc([...argv], undefined, env);
    expect({ status: expected.status, stderr: expected.stderr }).toEqual({ status: 0, stderr: '' });
    const damaged = (offset: number): Buffer => {
      const b = Buffer.from(good);
      b.write('ABCDEFGH', Math.min(offset, b.length - 8), 'latin1');
      return b;
    };
    const other = readFileSync(join(copy, 'dist', name === 'svc.cjs.cache' ? 'help.cjs.cache' : 'svc.cjs.cache'));
    for (const [what, bytes] of [
      ...[20, 20_000, 100_000, 200_000, good.length - 100].map((o) => [`8 bytes overwritten at ${o}`, damaged(o)] as const),
      ['truncated', good.subarray(0, good.length >> 1)],
      ['empty', Buffer.alloc(0)],
      ['the other path\'s cache', other],
    ] as const) {
      writeFileSync(cacheFile, bytes);
      const r = svc([...argv], undefined, env);
      expect({ what, status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ what, status: 0, stdout: expected.stdout, stderr: '' });
    }
    rmSync(cacheFile);
    expect(svc([...argv], undefined, env).stdout).toBe(expected.stdout);
    writeFileSync(cacheFile, good);
  });

  it.each(checks)('uses the caches the build made (checked by %s): V8 takes their data', (_how, env) => {
    // What the shim does, in a process of its own: unpack each cache for the bundle and compile with it.
    const probe = `const shim = require(${JSON.stringify(join(copy, 'bin', 'svc.js'))});
      const { readFileSync } = require('node:fs'); const { Script } = require('node:vm');
      console.log(JSON.stringify([[shim.bundleFile, shim.cacheFile], [shim.helpBundleFile, shim.helpCacheFile]].map(([file, cache]) => {
        const bundle = shim.readBundle(file);
        const data = shim.unpackCache(bundle, readFileSync(cache));
        return data ? new Script(bundle.toString('latin1'), { filename: file, cachedData: data }).cachedDataRejected : 'refused';
      })));`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
    expect({ stdout: r.stdout, stderr: r.stderr }).toEqual({ stdout: '[false,false]\n', stderr: '' });
  });

  it('says how to build svc when the bundle is missing (a fresh clone), in one line', () => {
    const bundle = join(copy, 'dist', 'svc.cjs');
    const text = readFileSync(bundle);
    rmSync(bundle);
    try {
      const r = svc(['accounts', 'count']);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
        status: 1,
        stdout: '',
        stderr: `svc: cannot read ${bundle} (ENOENT); svc is not built yet: run \`npm run build\` in its folder (npm test and npm run demo build too)\n`,
      });
    } finally {
      writeFileSync(bundle, text);
    }
  });

  it.each([
    ['help.cjs', ['--help'], 'print the version'],
    ['svc.cjs', ['describe', 'accounts', '-o', 'table'], 'Read permission'],
  ])('runs %s as it is, not the code a cache was made from (same length, other text)', (name, argv, marker) => {
    const bundle = join(copy, 'dist', name);
    const text = readFileSync(bundle, 'latin1');
    const to = marker.toUpperCase();
    expect(text.includes(marker), `${name} holds '${marker}'`).toBe(true);
    writeFileSync(bundle, text.replaceAll(marker, to), 'latin1');
    try {
      expect(svc([...argv]).stdout).toContain(to);
    } finally {
      writeFileSync(bundle, text, 'latin1');
    }
  });

  it('answers help with the whole program when the help build is missing or unreadable', () => {
    const expected = svc(['accounts', '--help']);
    const help = join(copy, 'dist', 'help.cjs');
    const text = readFileSync(help);
    for (const damage of ['missing', 'not JavaScript'] as const) {
      if (damage === 'missing') rmSync(help);
      else writeFileSync(help, 'this is not ( JavaScript');
      try {
        const r = svc(['accounts', '--help']);
        expect({ damage, status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ damage, status: 0, stdout: expected.stdout, stderr: '' });
      } finally {
        writeFileSync(help, text);
      }
    }
  });

  // Lines the shim sends to the help build (they hold -h, --help or start with help) that run a command, or
  // reach a module the help build leaves out: the whole program answers, and nothing is printed twice.
  it.each([
    [['--profile', '-h', 'describe', 'accounts'], ['describe', 'accounts']],
    [['help', '--jq', '.'], undefined],
    [['accounts', 'count', '--filter', '-h', '--print-request'], undefined],
  ])('hands `svc %s` to the whole program, printing once', (argv, same) => {
    const r = svc([...argv]);
    if (same) expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ ...pick(svc([...same])), stderr: '' });
    const all = r.stdout + r.stderr;
    expect(all.length, all).toBeGreaterThan(0);
    // Nothing twice: no line of the output (a usage line, an error) appears again after itself.
    expect(all.split('Usage:').length, all).toBeLessThanOrEqual(2);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('svc:')).length, r.stderr).toBeLessThanOrEqual(1);
  });

  it('says so when it cannot write the version (a full disk), as for any output', (ctx) => {
    const full = join(copy, 'full');
    const made = spawnSync('mknod', ['-m', '666', full, 'c', '1', '7']);
    if (made.status !== 0) ctx.skip(`cannot make a private /dev/full here (mknod: ${made.stderr.toString().trim()}); the real one is not put at risk`);
    const r = svc([], `"${process.execPath}" "${join(copy, 'bin', 'svc.js')}" --version > "${full}"`);
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 1,
      stderr: 'svc: cannot write to standard output: no space left on device (ENOSPC); free some space or write elsewhere\n',
    });
  });
});

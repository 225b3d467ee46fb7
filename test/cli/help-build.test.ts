/**
 * The help build (dist/help.cjs, src/cli/help-build.ts) must print what the
 * whole program prints, for every help path: `svc`, `svc --help`, every
 * command and verb with `--help`, `svc help <command>` and every help topic.
 * Each build runs every path in one process of its own (the way bin/svc.js
 * loads it), and no path may need the whole program. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { helpTopics } from '../../src/cli/help-topics.js';
import { fullTree } from '../../src/cli/program.js';
import { svc, testDeps } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = mkdtempSync(join(tmpdir(), 'svc-help-build-'));
afterAll(() => rmSync(config, { recursive: true, force: true }));

/** Every command path of the whole tree (families with their verbs), as argv words. */
function paths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

const commandPaths = paths(fullTree(testDeps()));
const lines: string[][] = [
  [],
  ['--help'],
  ['-h'],
  ['help'],
  ['--no-color', '-v', '--help'],
  ...Object.keys(helpTopics).map((t) => ['help', t]),
  ...commandPaths.map((p) => [...p, '--help']),
  // `svc help <command>` for the hand-written commands and one family's verbs (the rest take the same path).
  ...commandPaths.filter((p) => p[0] === 'accounts' || p.length === 1).map((p) => ['help', ...p]),
  ['help', 'nosuch'],
  ['nosuch', '--help'],
];

/** Runs every line in one build, in one process; the outputs, one per line, with exit codes. */
function runAll(bundle: 'svc.cjs' | 'help.cjs'): { argv: string[]; code: number; out: string }[] {
  const driver = `
    const shim = require(${JSON.stringify(join(root, 'bin', 'svc.js'))});
    const { writeSync } = require('node:fs');
    const file = require('node:path').join(${JSON.stringify(join(root, 'dist'))}, ${JSON.stringify(bundle)});
    const { main } = shim.loadBundle(shim.readBundle(file), undefined, file, file).exports;
    (async () => {
      for (const argv of ${JSON.stringify(lines)}) {
        const code = await main(argv);
        writeSync(1, '\\n\\u0000' + code + '\\u0000\\n');
        writeSync(2, '\\n\\u0000\\n');
      }
    })();`;
  const r = spawnSync(process.execPath, ['-e', driver], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '', HOME: config, SVC_CONFIG_DIR: join(config, 'svc'), NO_COLOR: '1' },
  });
  expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
  const outs = r.stdout.split(/\n\0(-?\d+)\0\n/);
  const errs = r.stderr.split('\n\0\n');
  return lines.map((argv, i) => ({ argv, code: Number(outs[2 * i + 1]), out: `${outs[2 * i]}\n--- stderr ---\n${errs[i]}` }));
}

describe('the help build', () => {
  it('is built', () => {
    expect(existsSync(join(root, 'dist', 'help.cjs')), 'dist/help.cjs is missing: run `npm run build`').toBe(true);
  });

  it(`prints what the whole program prints, on every help path (${lines.length} command lines), without handing any over`, () => {
    const help = runAll('help.cjs');
    const whole = runAll('svc.cjs');
    expect(help.filter((h) => h.code === -1).map((h) => h.argv.join(' '))).toEqual([]);
    for (const [i, h] of help.entries()) expect({ argv: h.argv, code: h.code, out: h.out }).toEqual({ argv: h.argv, code: whole[i]?.code, out: whole[i]?.out });
    // Not an empty comparison: the paths printed help.
    expect(help.filter((h) => h.out.includes('Usage:')).length).toBeGreaterThan(commandPaths.length);
  }, 120_000);
});

// A line without a command word lists the families from the catalogue as text instead of building a group
// for each (src/cli/program.ts): laid out by commander's help like the groups were, at every width.
describe('the root help', () => {
  it.each([40, 60, 80, 100, 132, 250])('lists the families as the whole tree does, %i columns wide', async (columns) => {
    const deps = testDeps({ tty: true, columns });
    const expected = fullTree(deps).helpInformation();
    expect(expected).toContain('Resource commands:\n  accounts');
    for (const argv of [['--help'], [], ['-h'], ['--no-color', '--help']]) {
      const r = await svc(argv, { tty: true, columns });
      expect({ argv, code: r.code, stdout: r.stdout }).toEqual({ argv, code: 0, stdout: expected });
    }
  });
});

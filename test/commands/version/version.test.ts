/**
 * `svc version`: no options of its own; the version, the build's commit and
 * what runs it, as data in a pipe and labelled lines on a terminal. The
 * spawned forms (`svc --version --verbose`, a build's commit) are in
 * test/e2e/pack.test.ts and test/e2e/shim.test.ts.
 */
import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { describe, expect, it } from 'vitest';
import { versionSpec } from '../../../src/commands/version/command.js';
import { svc } from '../../helpers/cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('svc version', () => {
  it('takes no options of its own', () => {
    expect(versionSpec.toOptions({ args: [], flags: {} })).toEqual({});
  });

  it('prints the version, the commit, Node.js and the platform: data in a pipe', async () => {
    const r = await svc(['version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    // Run from the sources (no build): no commit is baked in, and the test deps name no Node.js version.
    expect(JSON.parse(r.stdout)).toEqual({ version: pkg.version, commit: 'unknown', node: 'unknown', platform: platform(), arch: arch() });
  });

  it('prints labelled lines on a terminal', async () => {
    const r = await svc(['version'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`svc:       ${pkg.version}\ncommit:    unknown\nnode:      unknown\nplatform:  ${platform()}/${arch()}\n`);
  });

  it('leaves svc --version as it was: the version alone', async () => {
    expect(await svc(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

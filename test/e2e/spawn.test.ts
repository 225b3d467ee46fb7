import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}bin/svc.js`;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string };

function svc(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('the built svc binary', () => {
  beforeAll(() => {
    // `npm test` builds first (pretest); running vitest alone needs `npm run build`.
    expect(existsSync(`${root}dist/svc.cjs`), 'dist/svc.cjs is missing: run `npm run build`').toBe(true);
  });

  it('prints its version and exits 0', () => {
    const r = svc(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(r.stderr).toBe('');
  });

  it('describes a family as JSON when piped', () => {
    const r = svc(['describe', 'accounts']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const data = JSON.parse(r.stdout) as { name: string; fields: { name: string }[] };
    expect(data.name).toBe('accounts');
    expect(data.fields.map((f) => f.name)).toContain('currency');
  });

  it('sets the process exit code from a usage error', () => {
    const r = svc(['describe', 'acounts']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("svc: unknown resource 'acounts'; did you mean 'accounts'? (run 'svc resources' for the list)\n");
  });
});

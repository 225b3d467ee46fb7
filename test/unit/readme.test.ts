import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exitCodeTable } from '../../src/errors.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };

describe('README', () => {
  it('starts with the two quick-start commands', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(readme.indexOf('```sh')).toBeLessThan(20);
    expect(firstBlock).toMatch(/^npm ci && npm run demo\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it('lists the exit codes exactly as src/errors.ts defines them', () => {
    const rows = [...readme.matchAll(/^\| (\d+) \| ([a-z ]+) \| (.+) \|$/gm)].map((m) => ({
      code: Number(m[1]),
      name: m[2],
      meaning: m[3],
    }));
    expect(rows).toEqual(exitCodeTable.map((r) => ({ code: r.code, name: r.name, meaning: r.meaning })));
  });

  it('names only npm scripts that exist', () => {
    for (const m of readme.matchAll(/npm run ([a-z:]+)/g)) expect(pkg.scripts, `npm run ${m[1]}`).toHaveProperty([m[1] ?? '']);
  });
});

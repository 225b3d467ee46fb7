import { readdirSync, readFileSync } from 'node:fs';
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

  it('names, under Environment variables, every environment variable src/ reads', () => {
    const start = readme.indexOf('\n## Environment variables\n');
    expect(start).toBeGreaterThan(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const read = new Set<string>();
    const files = readdirSync(new URL('../../src/', import.meta.url), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      const text = readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8');
      for (const m of text.matchAll(/\benv(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[['"]([A-Za-z_][A-Za-z0-9_]*)['"]\])/g)) read.add(m[1] ?? m[2] ?? '');
    }
    expect(read.size).toBeGreaterThan(20);
    for (const name of read) expect(section, `${name} is read in src/ but not named under Environment variables`).toMatch(new RegExp(`\`${name}\`|\`${name.replace(/^SLURM_ARRAY_TASK/, '')}\``));
  });
});

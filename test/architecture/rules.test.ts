/**
 * The architecture rules (README § Architecture) as tests: the import rules of
 * .dependency-cruiser.cjs, one test per rule, and "only src/cli/main.ts touches
 * `process`", which imports cannot show. `npm run graph` prints the same
 * findings and the module graph.
 */
import type { ICruiseResult, IViolation } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';
import { cruiseSrc, describeViolation } from './cruise.js';
import { processUses, scanProcessUses } from './process-uses.js';

// The one module allowed to touch `process`: it builds the Deps every other module gets.
const PROCESS_OWNER = 'src/cli/main.ts';

const RULES = [
  'only-http-imports-undici',
  'lower-layers-never-import-cli',
  'sandbox-imports-no-client-code',
  'base-is-a-leaf',
  'verb-imports-no-other-verb',
  'command-imports-no-other-command',
  'shared-files-import-only-command-data',
  'no-circular',
  'not-to-unresolvable',
  'no-dev-dependencies-in-the-product',
] as const;

let result: ICruiseResult;
beforeAll(async () => {
  result = await cruiseSrc();
}, 60_000);

describe('import rules (.dependency-cruiser.cjs; `npm run graph` shows them)', () => {
  it('checks every rule of the config, over all of src/, type-only and dynamic imports included', () => {
    const configured = (result.summary.ruleSetUsed?.forbidden ?? []).map((r) => r.name).sort();
    expect(configured).toEqual([...RULES].sort());
    expect(result.summary.optionsUsed.tsPreCompilationDeps).toBe(true);
    expect(result.modules.filter((m) => m.source.startsWith('src/')).length).toBeGreaterThan(150);
    // A rule that saw no type-only imports, or never resolved undici, would pass for nothing.
    const deps = result.modules.flatMap((m) => m.dependencies.map((d) => ({ from: m.source, ...d })));
    expect(deps.some((d) => d.from === 'src/output/write.ts' && d.resolved === 'src/output/io.ts' && d.dependencyTypes.includes('type-only'))).toBe(true);
    expect(deps.some((d) => d.from.startsWith('src/http/') && d.resolved.startsWith('node_modules/undici/'))).toBe(true);
  });

  it.each(RULES)('%s', (rule) => {
    const broken: IViolation[] = result.summary.violations.filter((v) => v.rule.name === rule);
    const why = (result.summary.ruleSetUsed?.forbidden ?? []).find((r) => r.name === rule)?.comment ?? '';
    const lines = [...new Set(broken.map(describeViolation))];
    const what = rule === 'no-circular' ? 'import cycle(s)' : 'import(s)';
    // One readable list (no diff): each line a violation, the rule's reason above it.
    if (lines.length > 0) throw new Error(`${lines.length} ${what} break '${rule}': ${why}\n  ${lines.join('\n  ')}\n`);
  });
});

describe(`only ${PROCESS_OWNER} touches \`process\``, () => {
  it('finds uses with the compiler, not in comments, strings or property names', () => {
    const code = [
      '// process.env in a comment',
      "const a = 'process.env'; const b = `process.exit ${1}`;",
      'const c = { process: 1 }; c.process; type T = NodeJS.Process;',
      'const d = process.env.HOME;',
      "const e = process['platform'];",
      'const { pid } = process;',
      'f(globalThis.process);',
      "import { env } from 'node:process';",
      'let g: typeof process.exitCode;',
    ].join('\n');
    expect(processUses('x.ts', code).map((u) => `${u.line}: ${u.text}`)).toEqual([
      '4: process.env',
      "5: process['platform']",
      '6: process',
      '7: globalThis.process',
      "8: import { env } from 'node:process';",
      '9: process.exitCode',
    ]);
  });

  it('holds in src/', () => {
    const uses = scanProcessUses('src').filter((u) => u.file !== PROCESS_OWNER);
    const lines = uses.map((u) => `${u.file}:${u.line}:${u.column}: ${u.text}`);
    if (lines.length > 0) throw new Error(`${lines.length} place(s) touch \`process\` outside ${PROCESS_OWNER} (take it from Deps instead):\n  ${lines.join('\n  ')}\n`);
  });
});

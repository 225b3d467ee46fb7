/**
 * README audit of the start, Architecture, Reliability, Development and
 * Dependencies sections: what the text promises and the repository does not do.
 *
 * 1. Architecture: "a command folder src/commands/<noun>/<verb>/ imports the
 *    nouns' shared files (src/commands/<noun>/*.ts) but no other command's
 *    folder". The commands whose folder is one level deep (src/commands/api/,
 *    describe/, resources/, sync/, version/: the folder is the command) match
 *    the rules' pattern for a noun's shared files, so a verb may import their
 *    run.ts and the check (test/architecture, `npm run graph`) says nothing.
 *    Shown on a tree of its own, cruised with the project's
 *    .dependency-cruiser.cjs, so src/ is not touched.
 * 2. The demo (`npm ci && npm run demo`) hides the sandbox's password and
 *    appsecret ("…") in what it prints, but prints the OAuth client secret
 *    in full. Run in a copy of this tree (dist/ built there, node_modules
 *    linked), so the shared dist/ is not rebuilt.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'svc-readme-rest-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Cruises a tree of the given files with the project's rules; the violations as `rule: from -> to`. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(temp, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.cjs'));
  const reported = await cruise(['src'], { ...options, outputType: 'json', baseDir: dir, tsConfig: undefined }, undefined, {});
  const result = (typeof reported.output === 'string' ? JSON.parse(reported.output) : reported.output) as ICruiseResult;
  // Every module resolved: a rule that saw no edge would pass for nothing.
  expect(result.summary.totalDependenciesCruised).toBe(Object.values(files).filter((t) => t.includes('import ')).length);
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

describe('README § Architecture: a command folder imports no other command\'s folder', () => {
  it("is checked for another verb's folder (the control)", async () => {
    const found = await violations({
      'src/commands/records/get/command.ts': 'export const getVerb = 1;\n',
      'src/commands/records/query/run.ts': "import { getVerb } from '../get/command.js';\nexport const q = getVerb;\n",
    });
    expect(found).toEqual(['verb-imports-no-other-verb: src/commands/records/query/run.ts -> src/commands/records/get/command.ts']);
  });

  it.each(['api', 'describe', 'resources', 'sync', 'version'])('is checked for the one-level command folder src/commands/%s/ (its run.ts is no shared file)', async (command) => {
    const found = await violations({
      [`src/commands/${command}/command.ts`]: 'export const spec = 1;\n',
      [`src/commands/${command}/run.ts`]: 'export const body = 1;\n',
      'src/commands/records/get/run.ts': `import { body } from '../../${command}/run.js';\nexport const g = body;\n`,
    });
    expect(found).toEqual([`verb-imports-no-other-verb: src/commands/records/get/run.ts -> src/commands/${command}/run.ts`]);
  });
});

describe("README § Architecture: a command's own folder imports no other command's folder", () => {
  it('src/commands/api/run.ts importing a verb of records is refused; a noun\'s shared file is not', async () => {
    const found = await violations({
      'src/commands/records/get/run.ts': 'export const body = 1;\n',
      'src/commands/records/shared.ts': 'export const shared = 1;\n',
      'src/commands/api/command.ts': 'export const spec = 1;\n',
      'src/commands/api/run.ts': "import { body } from '../records/get/run.js';\nexport const a = body;\n",
      'src/commands/api/render.ts': "import { shared } from '../records/shared.js';\nexport const r = shared;\n",
    });
    expect(found).toEqual(['command-imports-no-other-command: src/commands/api/run.ts -> src/commands/records/get/run.ts']);
  });
});

describe('README line 3: npm run demo', () => {
  it('prints no secret of the sandbox: the client secret is hidden as the password and appsecret are', () => {
    const copy = join(temp, 'clone');
    const left = new Set(['node_modules', '.git', 'dist', 'coverage', 'test-artifacts']);
    cpSync(root, copy, { recursive: true, filter: (source) => !left.has(relative(root, source).split(sep)[0] ?? '') });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const home = join(temp, 'home');
    mkdirSync(home);
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0])));
    const r = spawnSync(process.execPath, ['scripts/demo.mjs'], { cwd: copy, env: { ...env, HOME: home, SVC_CONFIG_DIR: join(home, 'svc') }, encoding: 'utf8', timeout: 150_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/"password": "…"/);
    expect(r.stdout).toMatch(/"appsecret": "…"/);
    // The sandbox's OAuth client secret is a credential too: what the demo prints should not hold it.
    expect(r.stdout).not.toMatch(/"clientSecret": "(?!…")[^"]+"/);
  }, 180_000);
});

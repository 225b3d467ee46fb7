/**
 * The generated catalogue is what the generator makes from the vendor
 * documents, found the way `npm run gen` finds them (SVC_SPEC_DIR, else
 * ../shared/spec; src/gen/spec-files.ts). Without them this test is skipped
 * and says why, except in CI, which must have them.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGen } from '../../src/gen/main.js';
import { loadSpec, missingSpec, projectRoot, specFolder, specLocation } from '../../src/gen/spec-files.js';

const loc = specLocation({ env: process.env, cwd: process.cwd() });
const present = loadSpec(loc) !== undefined;
const regenerates = 'src/catalogue/resources.gen.ts matches a fresh run of the generator';

/** Runs the generator in memory: what it would write, what it says, its exit code. */
async function gen(argv: string[], env: Record<string, string | undefined> = {}) {
  const written = new Map<string, string>();
  let stderr = '';
  const code = await runGen({ argv, env, cwd: process.cwd(), stderr: (t) => (stderr += t), write: (f, t) => written.set(f, t), completions: false });
  return { code, stderr, written };
}

if (present) {
  it(regenerates, async () => {
    const r = await gen([], process.env);
    expect(r.code, r.stderr).toBe(0);
    const fresh = r.written.get(join(projectRoot, 'src', 'catalogue', 'resources.gen.ts'));
    const committed = readFileSync(join(projectRoot, 'src', 'catalogue', 'resources.gen.ts'), 'utf8');
    expect(committed === fresh, 'the generated catalogue is stale or was edited by hand: run `npm run gen`').toBe(true);
  });
} else if (process.env.CI) {
  it(regenerates, () => {
    throw new Error(`CI must have the vendor documents: ${missingSpec(loc)}`);
  });
} else {
  it(regenerates, (ctx) => ctx.skip(`no vendor documents in ${loc.dir} (${loc.from}); outside CI they are optional (README: Development)`));
}

describe('where npm run gen finds the vendor documents', () => {
  it('fails with one line naming SVC_SPEC_DIR when they are not there', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-spec-'));
    const byEnv = await gen([], { SVC_SPEC_DIR: empty });
    expect(byEnv.code).toBe(2);
    expect(byEnv.stderr).toBe(`gen: no api.json and dbref.json in ${empty} or ${join(empty, 'openapi')} (from SVC_SPEC_DIR); set SVC_SPEC_DIR or pass --spec-dir DIR to the folder with the vendor documents (README: Development)\n`);
    expect(byEnv.written.size).toBe(0);
    const byFlag = await gen(['--spec-dir', empty], { SVC_SPEC_DIR: '/elsewhere' });
    expect(byFlag.stderr).toMatch(/^gen: no api\.json and dbref\.json in .* \(from --spec-dir\); set SVC_SPEC_DIR or pass --spec-dir DIR .*\n$/);
    expect(byFlag.stderr.split('\n')).toHaveLength(2);
  });

  it('takes --spec-dir over SVC_SPEC_DIR over ../shared/spec, relative to the working directory', () => {
    const env = { SVC_SPEC_DIR: 'from-env' };
    expect(specLocation({ specDir: 'flag', env, cwd: '/w' })).toEqual({ dir: '/w/flag', from: '--spec-dir' });
    expect(specLocation({ env, cwd: '/w' })).toEqual({ dir: '/w/from-env', from: 'SVC_SPEC_DIR' });
    expect(specLocation({ env: {}, cwd: '/w' })).toEqual({ dir: join(projectRoot, '..', 'shared', 'spec'), from: 'default' });
  });

  it('accepts the folder with the documents or one with them in openapi/', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-spec-'));
    mkdirSync(join(root, 'openapi'));
    for (const f of ['api.json', 'dbref.json']) writeFileSync(join(root, 'openapi', f), '{}');
    expect(specFolder({ dir: root, from: 'SVC_SPEC_DIR' })).toBe(join(root, 'openapi'));
    expect(specFolder({ dir: join(root, 'openapi'), from: 'SVC_SPEC_DIR' })).toBe(join(root, 'openapi'));
    writeFileSync(join(root, 'api.json'), '{}');
    expect(specFolder({ dir: root, from: 'SVC_SPEC_DIR' })).toBe(join(root, 'openapi')); // one file is not the folder
  });

  it('refuses arguments it does not know', async () => {
    const r = await gen(['--spec', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^gen: unknown argument '--spec'\nusage: npm run gen/);
    expect((await gen(['--spec-dir'])).stderr).toMatch(/^gen: --spec-dir needs a directory\n/);
  });
});

/**
 * Where the generator finds the vendor documents (api.json and dbref.json, the
 * service's OpenAPI document and database catalogue). They are not part of this
 * repository: `--spec-dir DIR`, else `SVC_SPEC_DIR`, else the project's shared
 * folder checked out beside the repository (`../shared/spec`). DIR may be the
 * folder holding the two files or one with them in `openapi/` (as shared/spec
 * has them). The tests that regenerate from them resolve the same way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiDocument, DbDocument } from './spec-types.js';

/** The project root (two levels above src/gen). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The documents the generator reads. */
export const SPEC_FILES = ['api.json', 'dbref.json'] as const;

/** Where the documents are looked for, and who said so. */
export interface SpecLocation {
  /** Absolute. */
  readonly dir: string;
  readonly from: '--spec-dir' | 'SVC_SPEC_DIR' | 'default';
}

/** `--spec-dir` (relative to `cwd`), else SVC_SPEC_DIR (likewise), else ../shared/spec beside the project. */
export function specLocation(opts: { readonly specDir?: string | undefined; readonly env: Readonly<Record<string, string | undefined>>; readonly cwd: string }): SpecLocation {
  if (opts.specDir) return { dir: resolve(opts.cwd, opts.specDir), from: '--spec-dir' };
  const env = opts.env.SVC_SPEC_DIR;
  if (env) return { dir: resolve(opts.cwd, env), from: 'SVC_SPEC_DIR' };
  return { dir: resolve(projectRoot, '..', 'shared', 'spec'), from: 'default' };
}

/** The folder that holds both documents: the location itself or its `openapi/`; undefined when neither does. */
export function specFolder(loc: SpecLocation): string | undefined {
  return [loc.dir, join(loc.dir, 'openapi')].find((d) => SPEC_FILES.every((f) => existsSync(join(d, f))));
}

/** One line saying the documents were not found, where it looked, and how to point at them. */
export function missingSpec(loc: SpecLocation): string {
  const said = loc.from === 'default' ? 'the default, beside the repository' : `from ${loc.from}`;
  return `no ${SPEC_FILES.join(' and ')} in ${loc.dir} or ${join(loc.dir, 'openapi')} (${said}); set SVC_SPEC_DIR or pass --spec-dir DIR to the folder with the vendor documents (README: Development)`;
}

/** Reads api.json and dbref.json from a folder that holds them. */
export function readSpec(folder: string): { api: ApiDocument; db: DbDocument } {
  return {
    api: JSON.parse(readFileSync(join(folder, 'api.json'), 'utf8')) as ApiDocument,
    db: JSON.parse(readFileSync(join(folder, 'dbref.json'), 'utf8')) as DbDocument,
  };
}

/** The documents at a location, or undefined when they are not there. */
export function loadSpec(loc: SpecLocation): { api: ApiDocument; db: DbDocument } | undefined {
  const folder = specFolder(loc);
  return folder ? readSpec(folder) : undefined;
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiDocument, DbDocument } from './spec-types.js';

/** The project root (two levels above src/gen). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where the vendor documents are: SVC_SPEC_DIR, else ../shared/spec/openapi beside the project. */
export function specDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_SPEC_DIR ?? resolve(projectRoot, '..', 'shared', 'spec', 'openapi');
}

/** Reads api.json and dbref.json, or returns undefined when they are absent. */
export function readSpec(dir: string): { api: ApiDocument; db: DbDocument } | undefined {
  const apiPath = join(dir, 'api.json');
  const dbPath = join(dir, 'dbref.json');
  if (!existsSync(apiPath) || !existsSync(dbPath)) return undefined;
  return {
    api: JSON.parse(readFileSync(apiPath, 'utf8')) as ApiDocument,
    db: JSON.parse(readFileSync(dbPath, 'utf8')) as DbDocument,
  };
}

/**
 * What ties a results file to its import while the import is unfinished:
 * `RESULTS.svc-state.json` names the family, the key and the input (its
 * sha256), so `--resume` continues only the same import of the same file, and
 * a fresh run does not overwrite a results file that still has rows to
 * resume. Removed when every row has succeeded. `RESULTS.svc-lock` is held
 * for the run (src/util/file-lock.ts), so two imports never write one file.
 */
import { readFileSync, rmSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { replaceFile } from '../util/atomic-file.js';

export interface ImportState {
  readonly svc: 'import';
  readonly version: 1;
  readonly family: string;
  readonly key: string | null;
  /** The input as given (a path, or - for stdin), its sha256 and its number of rows. */
  readonly input: { readonly name: string; readonly sha256: string; readonly rows: number };
  /** When the first run of this import started (ISO 8601). */
  readonly since: string;
}

export function statePath(results: string): string {
  return `${results}.svc-state.json`;
}

export function lockPathOf(results: string): string {
  return `${results}.svc-lock`;
}

/** The state beside a results file; undefined when there is none; a usage error when it is not svc's. */
export function readState(results: string): ImportState | undefined {
  const path = statePath(results);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const s = JSON.parse(text) as ImportState;
    const input = s?.input as Partial<ImportState['input']> | undefined;
    if (
      s?.svc === 'import' &&
      s.version === 1 &&
      typeof s.family === 'string' &&
      (s.key === null || typeof s.key === 'string') &&
      typeof s.since === 'string' &&
      typeof input === 'object' &&
      input !== null &&
      typeof input.sha256 === 'string' &&
      typeof input.name === 'string' &&
      Number.isSafeInteger(input.rows)
    ) {
      return s;
    }
  } catch {
    // reported below
  }
  throw new UsageError(`${path} is not an import state svc wrote (damaged or edited); remove it and ${results} to start the import afresh`);
}

/** Writes the state atomically (a new file renamed into place). */
export function writeState(results: string, state: ImportState): void {
  const path = statePath(results);
  replaceFile(path, `${JSON.stringify(state, null, 2)}\n`, 0o600);
}

export function removeState(results: string): void {
  rmSync(statePath(results), { force: true });
}

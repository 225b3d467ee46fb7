/**
 * `npm run gen`, second step: completions/ from the command tree. Loaded after
 * the catalogue module is written, so the tree is built from the fresh one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { completionHints } from '../cli/completion-view.js';
import { inertDeps } from '../cli/inert-deps.js';
import { fullTree } from '../cli/program.js';
import { completionFiles, renderCompletion, shells } from './completions.js';
import { projectRoot } from './spec-files.js';

/** Writes one completion script per shell; returns the files written. */
export function writeCompletions(write: (file: string, text: string) => void = writeFileSync): string[] {
  const program = fullTree(inertDeps());
  return shells.map((shell) => {
    const file = join(projectRoot, 'completions', completionFiles[shell]);
    write(file, renderCompletion(shell, program, completionHints(program)));
    return file;
  });
}

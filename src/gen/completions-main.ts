import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { completionHints } from '../cli/completion-view.js';
import { inertDeps } from '../cli/inert-deps.js';
import { fullTree } from '../cli/program.js';
import { completionFiles, renderCompletion, shells } from './completions.js';
import { projectRoot } from './spec-files.js';

/** `npm run gen` (second step): writes completions/ from the command tree. */
function main(): void {
  const program = fullTree(inertDeps());
  for (const shell of shells) {
    const file = join(projectRoot, 'completions', completionFiles[shell]);
    writeFileSync(file, renderCompletion(shell, program, completionHints(program)));
    process.stderr.write(`gen: ${shell} completion -> ${file}\n`);
  }
}

main();

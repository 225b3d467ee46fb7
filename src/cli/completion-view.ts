import type { Command } from 'commander';
import { families } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { renderCompletion, shells, type CompletionHints, type Shell } from '../gen/completions.js';
import { parquetCompressions } from '../commands/records/export/options.js';
import { exportFormats } from '../export/plan.js';
import { importFormats } from '../import/formats.js';
import { outputFormats } from '../output/format.js';
import type { TextView } from '../output/view.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';
import { helpTopics } from './help-topics.js';

/**
 * Values the tree cannot tell: what `describe`, `help`, `-o` and the export and
 * import options accept, each list the one the command checks its input against.
 * export reads -o as its format (or a file), so there -o offers export's formats.
 */
export function completionHints(program: Command): CompletionHints {
  const names = families.map((f) => f.name);
  const paths = families.flatMap((f) => f.fields.map((x) => `${f.name}.${x.name}`));
  const fieldsOf = Object.fromEntries(families.map((f) => [`${f.name} describe`, f.fields.map((x) => x.name)]));
  return {
    argValues: {
      ...fieldsOf,
      describe: [...names, ...paths],
      help: [...Object.keys(helpTopics), ...program.commands.map((c) => c.name())],
      completion: [...shells],
    },
    optionValues: [
      { paths: families.map((f) => `${f.name} export`), flags: ['-o', '--output', '--format'], values: exportFormats },
      { paths: families.map((f) => `${f.name} export`), flags: ['--compression'], values: parquetCompressions },
      { paths: families.map((f) => `${f.name} import`), flags: ['--format'], values: importFormats },
      { flags: ['-o', '--output'], values: outputFormats },
    ],
  };
}

/** `svc completion <shell>`: the completion script for that shell. */
export function completionView(program: Command, shell: string): TextView {
  const found = shells.find((s) => s === shell);
  if (!found) {
    throw new UsageError(`unknown shell '${shown(shell, 40)}'${didYouMean(shell, shells)} (choose ${shells.join(', ')})`);
  }
  return { kind: 'text', text: renderCompletion(found as Shell, program, completionHints(program)) };
}

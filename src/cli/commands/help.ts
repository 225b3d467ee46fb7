import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { didYouMean } from '../../util/suggest.js';
import { emit } from '../context.js';
import type { Deps } from '../deps.js';
import { helpTopicView, helpTopics } from './help-topics.js';

/** `svc help [topic...]`: a topic page, a command's help, or the overview. */
export async function runHelp(program: Command, self: Command, deps: Deps, words: readonly string[]): Promise<void> {
  if (words.length === 0) {
    program.outputHelp();
    return;
  }
  const page = words.length === 1 ? await helpTopicView(words[0] ?? '') : undefined;
  if (page) {
    await emit(self, deps, () => page);
    return;
  }
  let cmd: Command = program;
  for (const word of words) {
    const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const candidates = [...cmd.commands.map((c) => c.name()), ...(cmd === program ? Object.keys(helpTopics) : [])];
      throw new UsageError(`no help for '${words.join(' ')}'${didYouMean(word, candidates)} (run 'svc --help')`);
    }
    cmd = next;
  }
  cmd.outputHelp();
}

/**
 * The commands about svc itself, which read the command tree: `svc help` and
 * `svc completion`. The other commands live in src/commands/.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';
import type { CommandSpec } from './command.js';
import { helpTopics } from './help-topics.js';

/** The topic pages, one line each, as `svc help` and `svc help --help` list them. */
export function topicList(): string {
  const names = Object.keys(helpTopics);
  const width = Math.max(...names.map((n) => n.length));
  return `Help topics (svc help <topic>):\n${names.map((n) => `  ${n.padEnd(width)}  ${helpTopics[n]?.summary ?? ''}`).join('\n')}\n`;
}

/** The command tree as help and completion need it (program.ts builds it). */
export interface CommandTree {
  readonly root: Command;
  /** Adds the verbs of a family group (idempotent); true when `cmd` is one. */
  populate(cmd: Command): boolean;
  /** Adds every family's verbs (completion walks them all). */
  populateAll(): void;
}

/** `svc help` and `svc completion`, over the program they belong to. */
export function cliCommands(program: () => CommandTree): CommandSpec<{ words: string[] }>[] {
  return [
    {
      name: 'completion',
      summary: 'print a shell completion script: bash, zsh or fish',
      args: [{ name: 'shell', help: 'bash, zsh or fish' }],
      examples: [
        'source <(svc completion bash)     # in ~/.bashrc',
        'source <(svc completion zsh)      # in ~/.zshrc',
        'svc completion fish | source      # in ~/.config/fish/config.fish',
      ],
      toOptions: ({ args }) => ({ words: [String(args[0])] }),
      run: async ({ words }, ctx) => {
        const p = program();
        p.populateAll();
        const { completionView } = await import('./completion-view.js');
        await ctx.emit(completionView(p.root, words[0] ?? ''));
      },
    },
    {
      name: 'help',
      summary: `show help for a command or topic: ${Object.keys(helpTopics).join(', ')}`,
      args: [{ name: 'topic', help: `a command (accounts describe) or a topic (${Object.keys(helpTopics).join(', ')})`, optional: true, variadic: true }],
      notes: topicList(),
      examples: ['svc help accounts query', 'svc help filters', 'svc help exit-codes'],
      toOptions: ({ args }) => ({ words: [...((args[0] as string[] | undefined) ?? [])] }),
      run: async ({ words }, ctx) => {
        const { root, populate } = program();
        if (words.length === 0) {
          root.outputHelp();
          await ctx.emit({ kind: 'text', text: `\n${topicList()}` });
          return;
        }
        const { helpTopicView } = await import('./help-topics.js');
        const page = words.length === 1 ? await helpTopicView(words[0] ?? '') : undefined;
        if (page) return ctx.emit(page);
        let cmd: Command = root;
        for (const word of words) {
          const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
          if (!next) {
            const candidates = [...cmd.commands.map((c) => c.name()), ...(cmd === root ? Object.keys(helpTopics) : [])];
            throw new UsageError(`no help for '${shown(words.join(' '), 80)}'${didYouMean(word, candidates)} (run 'svc --help')`);
          }
          populate(next);
          cmd = next;
        }
        cmd.outputHelp();
      },
    },
  ];
}

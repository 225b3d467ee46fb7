import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { outputFormats, resolveFormat } from '../output/format.js';
import { didYouMean } from '../util/suggest.js';
import { version } from '../version.js';
import { emit } from './context.js';
import type { Deps } from './deps.js';
import { findFamily } from '../catalogue/index.js';
import { describeView } from './commands/describe.js';
import { runHelp } from './commands/help.js';
import { resourcesView } from './commands/resources.js';
import { addAuthCommands } from './commands/auth.js';
import { addLoginCommands } from './commands/login.js';
import { addProfileCommands } from './commands/profile.js';
import { addSandboxCommands } from './commands/sandbox/register.js';
import { addGeneralCommands } from './commands/general.js';
import { addResourceCommands } from './resource-command.js';


/** Commander's Command, tagging its usage errors with the command path for the hint. */
class SvcCommand extends Command {
  override createCommand(name?: string): SvcCommand {
    return new SvcCommand(name);
  }

  override error(message: string, options?: { code?: string; exitCode?: number }): never {
    try {
      return super.error(message, options);
    } catch (err) {
      if (err instanceof Error) Object.assign(err, { commandPath: commandPath(this) });
      throw err;
    }
  }
}

/** "svc accounts describe" for a subcommand. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function addHandWritten(program: Command, deps: Deps): void {
  program
    .command('resources')
    .description("list every record family: access, verbs, permissions, parent ('svc resources <verb>' works on the family named resources)")
    .argument('[verb]', 'a verb of the family named resources')
    .action(async (verb: string | undefined, _opts: unknown, self: Command) => {
      if (verb !== undefined) {
        const verbs = self.commands.map((c) => c.name());
        throw new UsageError(`unknown command '${verb}' for 'svc resources'${didYouMean(verb, verbs)} (run 'svc resources --help')`);
      }
      await emit(self, deps, () => resourcesView());
    });
  program
    .command('describe')
    .description("explain a resource or a field, like 'kubectl explain'")
    .argument('<path>', 'a resource (accounts), a field (accounts.type) or a path (accounts.contact.city)')
    .addHelpText('after', '\nExamples:\n  svc describe accounts\n  svc describe accounts.type\n  svc describe accounts -o json\n')
    .action(async (path: string, _opts: unknown, self: Command) => {
      await emit(self, deps, () => describeView(path));
    });
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', '\nExamples:\n  source <(svc completion bash)     # in ~/.bashrc\n  source <(svc completion zsh)      # in ~/.zshrc\n  svc completion fish | source      # in ~/.config/fish/config.fish\n')
    .action(async (shell: string, _opts: unknown, self: Command) => {
      const { completionView } = await import('./commands/completion.js');
      await emit(self, deps, () => completionView(program, shell));
    });
  program
    .command('help')
    .description('show help for a command, or a topic page: exit-codes')
    .argument('[topic...]', 'a command (accounts describe) or a topic (exit-codes)')
    .action(async (topic: string[], _opts: unknown, self: Command) => {
      await runHelp(program, self, deps, topic);
    });
  addLoginCommands(program, deps);
  addAuthCommands(program, deps);
  addProfileCommands(program, deps);
  addSandboxCommands(program, deps);
  addGeneralCommands(program, deps);
}

/** Options of the root that take a value (their value is not a command word). */
const VALUE_OPTIONS = new Set(['-o', '--output', '--delimiter', '--profile', '--url', '--token-file', '--timeout', '--retries', '--ca-file']);
/** Which resource groups a command line needs, and whether they need their verbs. */
export interface GroupPlan {
  /** Families built with every verb: 'all' (completion walks them) or a list. */
  readonly full: 'all' | readonly string[];
  /** Add the other groups without their verbs (help lists them, typos are matched against them). */
  readonly shallow: boolean;
}

function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith('-')) words.push(a);
  }
  return words;
}

/**
 * The groups to build: one family with its verbs when the arguments name it
 * (also as `svc help FAMILY`), every family with verbs for `completion`,
 * nothing for another hand-written command, and the bare groups otherwise.
 */
export function planGroups(argv: readonly string[], handWritten: readonly string[]): GroupPlan {
  const [word, next] = commandWords(argv);
  if (word === 'completion') return { full: 'all', shallow: false };
  if (word !== undefined && findFamily(word)) return { full: [word], shallow: false };
  if (word === 'help') return { full: next !== undefined && findFamily(next) ? [next] : [], shallow: true };
  if (word !== undefined && handWritten.includes(word)) return { full: [], shallow: false };
  return { full: [], shallow: true };
}

/**
 * Builds the command tree (the groups `argv` needs, or all when `argv` is not
 * given). Cheap: command bodies load when they run.
 */
export function buildProgram(deps: Deps, argv?: readonly string[]): Command {
  const program = new SvcCommand('svc');
  program
    .description('work with the Business Data REST Service from the command line')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .addOption(
      new Option('-o, --output <format>', `output format: ${outputFormats.join(', ')} (default: table on a terminal, json otherwise); for export, also the file to write`).argParser(
        // A file path passes here (export writes it); commands that print check the format when they run.
        (v: string) => (/[./\\]/.test(v) ? v : resolveFormat(v, false)),
      ),
    )
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR works too)')
    .option('--no-header', 'no header line in table, csv and tsv output')
    .option('--delimiter <char>', "csv field separator (default ','; the service's own export uses ';')")
    .option('--crlf', 'csv and tsv lines end in CRLF instead of LF')
    .option('--profile <name>', 'the profile to use (default: $SVC_PROFILE, else the one chosen with svc profile use)')
    .option('--url <instance-url>', 'an instance URL to use without a profile, e.g. https://erp.example.com/acme (or $SVC_URL)')
    .option('--token-file <file>', 'read the token from this file (see also $SVC_TOKEN, $SVC_TOKEN_FILE)')
    .option('--timeout <duration>', 'longest wait for one answer, e.g. 30s (default 30s)')
    .option('--retries <n>', 'tries after a failed idempotent request (default 3)')
    .option('--ca-file <file>', 'also trust the CA certificates in this PEM file (see also $NODE_EXTRA_CA_CERTS)')
    .option('-v, --verbose', 'log each HTTP request to stderr, secrets redacted (or SVC_DEBUG=http)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => deps.stdout.write(s),
      writeErr: (s) => deps.stderr.write(s),
      outputError: () => undefined,
      getOutHelpWidth: () => deps.stdout.columns ?? 80,
      getErrHelpWidth: () => deps.stderr.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .commandsGroup('Commands:');
  addHandWritten(program, deps);
  const handWritten = program.commands.map((c) => c.name());
  addResourceCommands(program, deps, argv ? planGroups(argv, handWritten) : { full: 'all', shallow: false });
  return program;
}

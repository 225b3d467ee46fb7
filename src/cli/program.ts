/**
 * The command tree: every command's data (src/commands/…) turned into
 * commander commands, in one place, with help and examples rendered from that
 * data. The 64 record families are bare groups until one is run (or help or
 * completion needs it): their verbs are added by a preSubcommand hook, so
 * commander alone parses the command line, combined short flags included.
 */
import { Command, CommanderError, Help, Option, type HelpContext } from 'commander';
import { families, findFamily, type ResourceFamily } from '../catalogue/index.js';
import { commands } from '../commands/index.js';
import type { RecordVerb } from '../commands/records/record-verb.js';
import { allows, recordVerbs } from '../commands/records/verbs.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { didYouMean } from '../util/suggest.js';
import { version } from '../version.js';
import { isGroup, type AnySpec, type CommandSpec, type OptionSpec } from './command.js';
import { createContext } from './context.js';
import { cliCommands, type CommandTree } from './cli-commands.js';
import type { Deps } from './deps.js';
import { FullBuildNeeded, isHelpBuild } from './help-build.js';
import { firstCommandWord, globalOptionSpecs, toGlobals } from './globals.js';

/**
 * Commander's Command, tagging its usage errors with the command path for the
 * hint; a group's `help [command]` is help asked for (exit 0), and a verb typed
 * before its family (`svc count items`) is named as such.
 */
class SvcCommand extends Command {
  override createCommand(name?: string): SvcCommand {
    return new SvcCommand(name);
  }

  /**
   * Commander calls help() for a group's `help` command (asked for: stdout, exit 0, as `svc help <group>`),
   * and help({ error: true }) for a group run without a verb (args empty: the help on stderr, a usage
   * error) or for `help WORD` naming no command of the group, which is one line here.
   */
  override help(context?: HelpContext | ((str: string) => string)): never {
    if (typeof context === 'object' && context.error) {
      const word = this.args[0] === 'help' ? this.args[1] : undefined;
      if (word === undefined) return super.help(context);
      const path = commandPath(this);
      throw new UsageError(`no help for '${shown(word, 80)}' in '${path}'${didYouMean(word, this.commands.map((c) => c.name()))} (run '${path} --help')`);
    }
    this.outputHelp();
    throw new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)');
  }

  /** Commander's own (untyped) hook for a word that names no subcommand. */
  unknownCommand(): never {
    const [word = '', next] = this.args;
    const refusal = this.parent === null ? verbFirst(word, next) : undefined;
    if (refusal) throw refusal;
    return (Command.prototype as unknown as { unknownCommand(this: Command): never }).unknownCommand.call(this);
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

/**
 * `svc count items`: a verb of the record families (or its alias, such as list) given before the family,
 * pointed at `svc items count`; undefined when the word is no verb.
 */
function verbFirst(word: string, next: string | undefined): UsageError | undefined {
  const family = next === undefined ? undefined : findFamily(next);
  const named = (v: RecordVerb): boolean => v.name === word || aliasesOf(v, family).includes(word);
  const verb = recordVerbs.find(named);
  if (!verb) return undefined;
  const lead = `unknown command '${word}': the family comes first, then the verb`;
  if (!family) return new UsageError(`${lead}: svc <family> ${word} (run 'svc resources' for the families)`);
  if (!allows(verb, family)) return new UsageError(`${lead}, and ${family.name} has no ${verb.name} (run 'svc ${family.name} --help')`);
  return new UsageError(`${lead}: svc ${family.name} ${word} (run 'svc ${family.name} --help')`);
}

/** A verb's aliases (query's list), as the family has them, or as the first family allowing the verb has them. */
function aliasesOf(verb: RecordVerb, family: ResourceFamily | undefined): readonly string[] {
  const owner = family !== undefined && allows(verb, family) ? family : families.find((f) => allows(verb, f));
  return (owner && verb.spec(owner).aliases) || [];
}

/** "svc accounts describe" for a subcommand. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function optionOf(spec: OptionSpec): Option {
  const o = new Option(spec.flags, spec.help);
  const parse = spec.parse;
  if (spec.repeatable) o.argParser((v: string, prev: unknown[] | undefined) => [...(prev ?? []), parse ? parse(v) : v]);
  else if (parse) o.argParser(parse);
  if (spec.defaultValue !== undefined) o.default(spec.defaultValue);
  if (spec.hidden) o.hideHelp();
  return o;
}

/** The part of --help after the options: the notes, then the examples. */
export function renderHelpAfter(spec: Pick<CommandSpec, 'notes' | 'examples'>): string {
  const parts: string[] = [];
  if (spec.notes) parts.push(spec.notes.trim());
  if (spec.examples?.length) parts.push(`Examples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}`);
  return parts.length ? `\n${parts.join('\n\n')}\n` : '';
}

/** Runs one command: flags to options, the context resolved once, closed after. */
export type Runner = (spec: CommandSpec, args: unknown[], self: Command) => Promise<void>;

/** Subcommands added to a group when it is first reached (the preSubcommand hook, help, completion). */
type Deferred = Map<Command, () => void>;

function addSpec(parent: Command, spec: AnySpec, runner: Runner, deferred?: Deferred): Command {
  const existing = parent.commands.find((c) => c.name() === spec.name);
  const cmd = existing ?? parent.command(spec.name).description(spec.summary);
  if (spec.group) cmd.helpGroup(spec.group);
  if (isGroup(spec)) {
    const add = (): void => spec.subcommands.forEach((sub) => addSpec(cmd, sub, runner));
    if (deferred) deferred.set(cmd, add);
    else add();
    return cmd;
  }
  for (const a of spec.aliases ?? []) cmd.alias(a);
  for (const a of spec.args ?? []) {
    const name = `${a.name}${a.variadic ? '...' : ''}`;
    cmd.argument(a.optional ? `[${name}]` : `<${name}>`, a.help);
  }
  for (const o of spec.options ?? []) cmd.addOption(optionOf(o));
  if (spec.passUnknownOptions) cmd.allowUnknownOption();
  const after = renderHelpAfter(spec);
  if (after) cmd.addHelpText('after', after);
  cmd.action(async (...params: unknown[]) => runner(spec, params.slice(0, spec.args?.length ?? 0), params[params.length - 1] as Command));
  return cmd;
}

/**
 * A hand-written command that shares its word with a family (`svc resources`):
 * the family's verbs join it as subcommands, and any other word after it is
 * refused with the nearest verb.
 */
function sharedWith(cmd: Command, family: ResourceFamily): Command {
  cmd.argument('[verb]', `a verb of the family named ${family.name}`);
  // Its action would take `help` for a verb: `help [verb]` is help, as in every other group.
  cmd.helpCommand(true);
  cmd.hook('preAction', (self, action) => {
    const word = action === self ? self.args[0] : undefined;
    if (word === undefined) return;
    const path = commandPath(self);
    throw new UsageError(`unknown command '${shown(word, 80)}' for '${path}'${didYouMean(word, self.commands.map((c) => c.name()))} (run '${path} --help')`);
  });
  return cmd;
}

function groupSummary(f: ResourceFamily): string {
  return f.access === 'read-write' ? f.title : `${f.title} (${f.access})`;
}

/** The heading the record families are listed under in the root help. */
const RESOURCE_GROUP = 'Resource commands:';

/**
 * The root help lists these families under RESOURCE_GROUP, laid out by commander's own help (the same
 * width, wrapping and styles) as if each were a group of its own: the output is the same (a test compares).
 */
function listFamilies(root: Command, listed: readonly ResourceFamily[]): void {
  const terms = listed.map((f) => f.name);
  root.configureHelp({
    padWidth(cmd: Command, helper: Help): number {
      const width = Help.prototype.padWidth.call(this, cmd, helper);
      return cmd === root ? Math.max(width, ...terms.map((t) => helper.displayWidth(helper.styleSubcommandTerm(t)))) : width;
    },
    formatHelp(cmd: Command, helper: Help): string {
      const text = Help.prototype.formatHelp.call(this, cmd, helper);
      if (cmd !== root) return text;
      const width = helper.padWidth(cmd, helper);
      const items = listed.map((f, i) =>
        helper.formatItem(helper.styleSubcommandTerm(terms[i] as string), width, helper.styleSubcommandDescription(groupSummary(f)), helper),
      );
      return [text, ...helper.formatItemList(RESOURCE_GROUP, items, helper)].join('\n');
    },
  });
}

/** The program and what it needs beyond commander: adding a family's verbs on demand. */
export type Program = CommandTree;

/** Builds the command tree. Cheap: command bodies load when they run, family verbs when a family is used. */
export function buildProgram(deps: Deps, argv?: readonly string[]): Program {
  // A command line that names a record family reaches only that family's group: the rest of the tree is
  // left out (a start-up cost); commander still parses the whole line.
  const word = argv && firstCommandWord(argv);
  const only = word !== undefined && !commands.some((c) => c.name === word) ? findFamily(word) : undefined;
  const root = new SvcCommand('svc');
  root
    .description('work with the Business Data REST Service from the command line')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
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
  for (const o of globalOptionSpecs) root.addOption(optionOf(o));

  // eslint-disable-next-line prefer-const
  let program: Program;
  const runner: Runner = async (spec, args, self) => {
    // The help build runs `svc help` only; any other command runs in the whole program (help-build.ts).
    if (isHelpBuild && spec.name !== 'help') throw new FullBuildNeeded(`the body of '${commandPath(self)}'`);
    const ctx = createContext(deps, toGlobals(self.optsWithGlobals()));
    try {
      await spec.run(spec.toOptions({ args: args as (string | string[] | undefined)[], flags: self.opts() }), ctx);
    } finally {
      await ctx.close();
    }
  };
  // svc's own commands (completion, help) are listed after those about the catalogue (resources, describe).
  const own = commands.findIndex((c) => c.name === 'describe') + 1;
  // Groups (svc's own and the families) get their subcommands when first reached: most lines reach one.
  const pending: Deferred = new Map();
  if (!only) for (const spec of [...commands.slice(0, own), ...cliCommands(() => program), ...commands.slice(own)]) addSpec(root, spec, runner, pending);

  const handWritten = new Map(root.commands.map((c) => [c.name(), c]));
  // A line without a command word (`svc`, `svc --help`, `svc -v`) can only print the root help, where a
  // family is a name and a title: those are listed from the catalogue, without a commander group each
  // (building and formatting 64 groups was a quarter of `svc --help`'s time).
  const listed: ResourceFamily[] = [];
  for (const family of only ? [only] : families) {
    // A family may share its name with a hand-written command (the family `resources`
    // and `svc resources`): its verbs then join that command.
    const existing = handWritten.get(family.name);
    if (!existing && argv !== undefined && word === undefined) {
      listed.push(family);
      continue;
    }
    const group = existing ? sharedWith(existing, family) : root.command(family.name).description(groupSummary(family)).helpGroup(RESOURCE_GROUP);
    pending.set(group, () => {
      for (const verb of recordVerbs) {
        const spec = allows(verb, family) ? verb.spec(family) : undefined;
        if (spec) addSpec(group, spec, runner);
      }
    });
  }
  const populate = (cmd: Command): boolean => {
    const add = pending.get(cmd);
    if (!add) return false;
    pending.delete(cmd);
    add();
    return true;
  };
  if (listed.length > 0) listFamilies(root, listed);
  root.hook('preSubcommand', (_root, sub) => void populate(sub));
  program = { root, populate, populateAll: () => [...pending.keys()].forEach(populate) };
  return program;
}

/** The whole tree, every family with its verbs (completion scripts are generated from it). */
export function fullTree(deps: Deps): Command {
  const p = buildProgram(deps);
  p.populateAll();
  return p.root;
}

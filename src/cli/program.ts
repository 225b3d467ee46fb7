/**
 * The command tree: every command's data (src/commands/…) turned into
 * commander commands, in one place, with help and examples rendered from that
 * data. The 64 record families are bare groups until one is run (or help or
 * completion needs it): their verbs are added by a preSubcommand hook, so
 * commander alone parses the command line, combined short flags included.
 * Options are positional: each command parses those before its subcommand's
 * word, and the global options are declared (hidden) on every command, so a
 * word that is one option's value is never taken for another (addGlobals).
 */
import { Command, CommanderError, Help, Option, type HelpContext } from 'commander';
import { families, findFamily, type ResourceFamily } from '../catalogue/index.js';
import { commands } from '../commands/index.js';
import type { RecordVerb } from '../commands/records/record-verb.js';
import { allows, recordVerbs } from '../commands/records/verbs.js';
import { UsageError } from '../errors.js';
import { shown } from '../util/shown.js';
import { didYouMean, suggest } from '../util/suggest.js';
import { outputFormats } from '../output/format.js';
import { version } from '../version.js';
import { isGroup, type AnySpec, type CommandSpec, type OptionSpec } from './command.js';
import { givenTwice } from './option-spec.js';
import { createContext } from './context.js';
import { cliCommands, type CommandTree } from './cli-commands.js';
import type { Deps } from './deps.js';
import { FullBuildNeeded, isHelpBuild } from './help-build.js';
import { firstCommandWord, globalOptionSpecs, outputGivenTwice, toGlobals } from './globals.js';

/**
 * Commander's Command, tagging its usage errors with the command path for the
 * hint; a group's `help [command]` is help asked for (exit 0), and a verb typed
 * before its family (`svc count items`) is named as such.
 */
class SvcCommand extends Command {
  override createCommand(name?: string): SvcCommand {
    return new SvcCommand(name);
  }

  override createHelp(): Help {
    return Object.assign(new SvcHelp(), this.configureHelp());
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
      // `svc accounts help --help`: options are positional, so the flag reaches the help command as its word.
      if (word === '--help' || word === '-h') return this.help();
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

  /** The root's: adds a family group's verbs (buildProgram sets it), so that an unknown option can be looked for there. */
  populateGroup?: (cmd: Command) => boolean;

  /**
   * Commander's hook for an option the command does not know: one line naming the command it belongs to
   * when it is an option of a verb below (`svc --limit 5 accounts query`), else the option meant.
   */
  unknownOption(flag: string): never {
    if ((this as unknown as { _allowUnknownOption: boolean })._allowUnknownOption) return undefined as never;
    const word = flag.startsWith('--') ? flag.replace(/=[^]*$/, '') : flag;
    const path = commandPath(this);
    const homes = this.commands.length > 0 ? optionHomes(this, word) : [];
    if (homes.length > 0) {
      const named = homes.length <= 2 ? homes.map((h) => `'${h}'`).join(' and ') : `'${homes[0]}', '${homes[1]}' and ${homes.length - 2} more`;
      throw new UsageError(`unknown option '${shown(word, 80)}' here: it is an option of ${named}; put it after the verb (run '${homes.length === 1 ? homes[0] : path} --help')`);
    }
    throw new UsageError(`unknown option '${shown(flag, 80)}'${optionMeant(this, word)} (run '${path} --help')`);
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

/** Whether a command takes this flag (its own options, the global ones included). */
function takes(cmd: Command, flag: string): boolean {
  return cmd.options.some((o) => o.long === flag || o.short === flag);
}

/** The root's populateGroup, adding a group's verbs when it has them still to come. */
function populateOf(cmd: Command): (c: Command) => boolean {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  return (root as SvcCommand).populateGroup ?? (() => false);
}

/**
 * Where an option unknown to a root or group belongs: the verb the line names after it, else the verbs below
 * that take it (`svc accounts query`, …); none when no command does.
 */
function optionHomes(cmd: Command, flag: string): string[] {
  const populate = populateOf(cmd);
  let at = cmd;
  for (const a of cmd.args) {
    if (a.startsWith('-')) continue;
    const sub = at.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) continue;
    populate(sub);
    at = sub;
    if (sub.commands.length === 0) return takes(sub, flag) ? [commandPath(sub)] : [];
  }
  const found: string[] = [];
  const visit = (c: Command): void => {
    for (const sub of c.commands) {
      populate(sub);
      if (sub.commands.length > 0) visit(sub);
      else if (sub.options.some((o) => !addedGlobals.has(o) && (o.long === flag || o.short === flag))) found.push(commandPath(sub));
    }
  };
  visit(at);
  return found;
}

/**
 * Names people reach for that svc spells otherwise, each with the flags meant, the first the command takes
 * wins: `query --format csv` is -o, `import --file` is --from.
 */
const optionAliases: Readonly<Record<string, readonly string[]>> = {
  format: ['-o'],
  'output-format': ['-o'],
  file: ['--from', '--data-file', '--output-file', '--filter-file'],
  input: ['--from', '--data-file'],
  'input-file': ['--from', '--data-file'],
  in: ['--from', '--data-file'],
  source: ['--from'],
  outfile: ['--output-file', '-o'],
  out: ['--output-file', '-o'],
  where: ['--filter'],
  query: ['--filter', '--search'],
  find: ['--search'],
  grep: ['--search'],
  order: ['--sort'],
  'order-by': ['--sort'],
  orderby: ['--sort'],
  'sort-by': ['--sort'],
  sortby: ['--sort'],
  columns: ['--fields'],
  select: ['--fields'],
  field: ['--fields'],
  max: ['--limit'],
  top: ['--limit'],
  head: ['--limit'],
  separator: ['--delimiter'],
  sep: ['--delimiter'],
  delim: ['--delimiter'],
  force: ['--yes'],
  debug: ['-v'],
  token: ['--token-file'],
  cacert: ['--ca-file'],
  cert: ['--ca-file'],
};

/** "; did you mean '--limit'?" for an unknown option: an alias, then the nearest name, any case, one dash or two. */
function optionMeant(cmd: Command, flag: string): string {
  const name = flag.replace(/^-+/, '');
  // `-vx`: a cluster of short flags; a name of one or two letters is no misspelt long option.
  if (!flag.startsWith('--') && name.length <= 2) return '';
  const lower = name.toLowerCase();
  if (outputFormats.includes(lower as never) && takes(cmd, '-o')) return `; did you mean '-o ${lower}'?`;
  const meant = Object.hasOwn(optionAliases, lower) ? optionAliases[lower]?.find((f) => takes(cmd, f)) : undefined;
  if (meant && meant !== `--${lower}`) return `; did you mean '${meant}'?`;
  const longs = cmd.options.filter((o) => o.long && (!o.hidden || addedGlobals.has(o))).map((o) => (o.long as string).slice(2));
  const best = suggest(name, [...longs, 'help'])[0];
  return best === undefined ? '' : `; did you mean '--${best}'?`;
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
  else if (o.required || o.optional) {
    // Not repeatable: given twice with different values, the first would be lost without a word. One
    // Option per command per run, so `given` is this run's value (a default is never given).
    let given: string | undefined;
    o.argParser((v: string, prev: unknown) => {
      const value = parse ? parse(v, prev) : v;
      if (given !== undefined && given !== v) throw new UsageError(givenTwice(o.long ?? o.short ?? spec.flags, given, v));
      given = v;
      return value;
    });
  } else if (parse) o.argParser(parse);
  if (spec.defaultValue !== undefined) o.default(spec.defaultValue);
  if (spec.hidden) o.hideHelp();
  return o;
}

/** The global options' keys in commander's values (`tokenFile`, `color`), with the flag that names them. */
const globalKeys: readonly { key: string; flag: string }[] = globalOptionSpecs.map((spec) => {
  const o = new Option(spec.flags);
  return { key: o.attributeName(), flag: o.long ?? o.short ?? spec.flags };
});

/** The options addGlobals added: help does not count them as the command's own (`help [topic...]`, no `[options]`). */
const addedGlobals = new WeakSet<Option>();
function added(o: Option): Option {
  addedGlobals.add(o);
  return o;
}

/** Commander's help, but a command's term in its parent's list shows `[options]` for options of its own only. */
class SvcHelp extends Help {
  override subcommandTerm(cmd: Command): string {
    const own = cmd.options.filter((o) => !addedGlobals.has(o));
    const saved = cmd.options;
    (cmd as { options: readonly Option[] }).options = own;
    try {
      return super.subcommandTerm(cmd);
    } finally {
      (cmd as { options: readonly Option[] }).options = saved;
    }
  }
}

/**
 * The global options (and -V), hidden, on a command below the root: the root parses its options only before
 * the first command word (enablePositionalOptions), each command those before its subcommand or among its
 * own, so a word that is another option's value (`--search -v`) is never taken for a global option.
 * Added after the command's own options, in the root's order (completion lists a command's flags in order).
 */
function addGlobals(cmd: Command): void {
  const taken = new Set(cmd.options.flatMap((o) => [o.short, o.long]).filter((f) => f !== undefined));
  if (!taken.has('--version')) {
    cmd.version(version, '-V, --version', 'print the version');
    const v = cmd.options[cmd.options.length - 1];
    if (v) added(v.hideHelp());
  }
  for (const spec of globalOptionSpecs) {
    const o = optionOf(spec).hideHelp();
    if ((o.long === undefined || !taken.has(o.long)) && (o.short === undefined || !taken.has(o.short))) cmd.addOption(added(o));
  }
}

/**
 * The global options of a run, from every level they may be given at (`svc -o json accounts query`,
 * `svc accounts query -o json`); one given at two levels with different values is refused, as one given
 * twice at the same level is.
 */
function globalValues(cmd: Command): Record<string, unknown> {
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) chain.unshift(c);
  const values: Record<string, unknown> = { ...chain[0]?.opts() };
  const given = new Set<string>();
  for (const c of chain) {
    for (const { key, flag } of globalKeys) {
      if (c.getOptionValueSource(key) !== 'cli') continue;
      const value = c.getOptionValue(key) as unknown;
      if (given.has(key) && values[key] !== value) {
        const [first, second] = [String(values[key]), String(value)];
        throw new UsageError(key === 'output' ? outputGivenTwice(first, second) : givenTwice(flag, first, second));
      }
      values[key] = value;
      given.add(key);
    }
  }
  return values;
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
    const add = (): void => {
      addGlobals(cmd);
      spec.subcommands.forEach((sub) => addSpec(cmd, sub, runner));
    };
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
  addGlobals(cmd);
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
    .commandsGroup('Commands:')
    // The root's options before the first command word only: below it, each command parses its own (addGlobals).
    .enablePositionalOptions();
  for (const o of globalOptionSpecs) root.addOption(optionOf(o));

  // eslint-disable-next-line prefer-const
  let program: Program;
  const runner: Runner = async (spec, args, self) => {
    // The help build runs `svc help` only; any other command runs in the whole program (help-build.ts).
    if (isHelpBuild && spec.name !== 'help') throw new FullBuildNeeded(`the body of '${commandPath(self)}'`);
    const ctx = createContext(deps, toGlobals(globalValues(self)));
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
      if (!existing) addGlobals(group);
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
  root.populateGroup = populate;
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

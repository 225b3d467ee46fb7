/**
 * A command as data: its words, arguments, options, help and examples, how its
 * flags become a plain typed options object, and its run function. program.ts
 * turns these into commander commands in one place (help is rendered there
 * too); nothing else in svc sees commander. Model: gh's `NewCmdX(f, runF)`
 * with an options struct, stripe-cli's operation specs as data.
 */
import type { Context } from './context.js';

export type { ArgSpec, OptionSpec } from './option-spec.js';
import type { ArgSpec, OptionSpec } from './option-spec.js';

/** What the parser hands a command: its positional arguments and its own flags, nothing of commander. */
export interface CommandInput {
  readonly args: readonly (string | readonly string[] | undefined)[];
  readonly flags: Readonly<Record<string, unknown>>;
}

/**
 * A runnable command. `toOptions` is pure (flags → options, throwing
 * UsageError for bad input) so a test can check it without a server; `run`
 * does the work with what the context resolved once (output, profile,
 * connection). Keep `run` a lazy import so start-up loads only the command
 * that runs. A command folder keeps its options type and its flags → options
 * function in options.ts, which command.ts, run.ts and the rest import:
 * run.ts never imports command.ts, which imports it (lazily).
 */
export interface CommandSpec<O = unknown> {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly args?: readonly ArgSpec[];
  readonly options?: readonly OptionSpec[];
  /** Paragraphs shown after the options in --help. */
  readonly notes?: string;
  /** Example command lines, shown under "Examples:" in --help. */
  readonly examples?: readonly string[];
  /** Help section the command is listed under in its parent's help. */
  readonly group?: string;
  /**
   * Option-looking words the command does not declare reach its arguments
   * instead of being refused by the parser; the command checks them itself
   * (create and update take `-tags=x` as a field argument).
   */
  readonly passUnknownOptions?: boolean;
  readonly toOptions: (input: CommandInput) => O;
  readonly run: (opts: O, ctx: Context) => Promise<void>;
}

/**
 * The options of a command that takes none of its own (the global flags still
 * apply): its `toOptions` returns `{}`, and its run takes this type from here,
 * so the run need not import the command's spec.
 */
export type NoOptions = Readonly<Record<string, never>>;

/** A command group (`svc profile …`): words only; its subcommands do the work. */
export interface GroupSpec {
  readonly name: string;
  readonly summary: string;
  readonly group?: string;
  readonly subcommands: readonly AnySpec[];
}

// Options are typed per command; the tree holds them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySpec = CommandSpec<any> | GroupSpec;

export function isGroup(spec: AnySpec): spec is GroupSpec {
  return 'subcommands' in spec;
}

/** A string flag, or undefined. */
export function str(flags: CommandInput['flags'], name: string): string | undefined {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** A boolean flag (absent is false). */
export function bool(flags: CommandInput['flags'], name: string): boolean {
  return flags[name] === true;
}

/** A repeatable flag's values (absent is none). */
export function list(flags: CommandInput['flags'], name: string): string[] {
  const v = flags[name];
  return Array.isArray(v) ? v.map(String) : [];
}

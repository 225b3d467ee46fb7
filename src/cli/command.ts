/**
 * A command as data: its words, arguments, options, help and examples, how its
 * flags become a plain typed options object, and its run function. program.ts
 * turns these into commander commands in one place (help is rendered there
 * too); nothing else in svc sees commander. Model: gh's `NewCmdX(f, runF)`
 * with an options struct, stripe-cli's operation specs as data.
 */
import type { Context } from './context.js';

/** One option, in commander's flag syntax: `--limit <n>`, `-o, --output <format>`, `--all`, `--no-header`. */
export interface OptionSpec {
  readonly flags: string;
  readonly help: string;
  /** Repeatable: every value is kept, in order (the flags value is a string[]). */
  readonly repeatable?: boolean;
  /** Checks and converts the value as it is parsed (throw UsageError to refuse it). */
  readonly parse?: (value: string) => unknown;
  /** The value when the option is not given (shown in help). */
  readonly defaultValue?: unknown;
  readonly hidden?: boolean;
}

/** One positional argument. */
export interface ArgSpec {
  readonly name: string;
  readonly help: string;
  readonly optional?: boolean;
  readonly variadic?: boolean;
}

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
 * that runs.
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
  readonly toOptions: (input: CommandInput) => O;
  readonly run: (opts: O, ctx: Context) => Promise<void>;
}

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

/** Options and arguments as data (see command.ts); program.ts renders them for commander. */
import { shown } from '../util/shown.js';

/** One option, in commander's flag syntax: `--limit <n>`, `-o, --output <format>`, `--all`, `--no-header`. */
export interface OptionSpec {
  readonly flags: string;
  readonly help: string;
  /** Repeatable: every value is kept, in order (the flags value is a string[]). */
  readonly repeatable?: boolean;
  /** Checks and converts the value as it is parsed (throw UsageError to refuse it); `previous`: its value so far (given before, or the default). */
  readonly parse?: (value: string, previous?: unknown) => unknown;
  /** The value when the option is not given (shown in help). */
  readonly defaultValue?: unknown;
  readonly hidden?: boolean;
}

/**
 * The refusal of an option that is not repeatable given twice with different values (program.ts applies it
 * to every such option): the last would win and the first be lost without a word.
 */
export function givenTwice(flag: string, first: string, second: string): string {
  return `${flag} given twice ('${shown(first, 60)}' and '${shown(second, 60)}'); give it once`;
}

/** One positional argument. */
export interface ArgSpec {
  readonly name: string;
  readonly help: string;
  readonly optional?: boolean;
  readonly variadic?: boolean;
}

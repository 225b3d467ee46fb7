/**
 * Option values of the record verbs as commander reads them: an empty value
 * (`--limit ''`, which `--limit "$N"` gives with N unset) is refused naming
 * the option, never taken as if the option were not given. One wrapper over
 * every verb's options (verbs.ts), so no verb can forget it.
 */
import type { CommandSpec, OptionSpec } from '../../cli/command.js';
import { UsageError } from '../../errors.js';

/** Options whose empty value has a message of its own: the filter language names an empty --filter, with a caret. */
const OWN_MESSAGE = new Set(['--filter']);

/** The option's long flag (`--limit` of `--limit <n>`), when it takes a value. */
function valueFlag(spec: OptionSpec): string | undefined {
  if (!/[<[]/.test(spec.flags)) return undefined;
  return /--[a-z0-9][a-z0-9-]*/i.exec(spec.flags)?.[0];
}

/** The option, refusing an empty value before its own parse (if any) sees it. */
export function refusingEmpty(spec: OptionSpec): OptionSpec {
  const flag = valueFlag(spec);
  if (flag === undefined || OWN_MESSAGE.has(flag)) return spec;
  const parse = spec.parse;
  return {
    ...spec,
    parse: (value: string, previous?: unknown) => {
      if (value === '') throw new UsageError(`${flag} is given an empty value (an unset variable?); give it a value or leave ${flag} out`);
      return parse ? parse(value, previous) : value;
    },
  };
}

/** A verb's command with every value-taking option refusing an empty value. */
export function refusingEmptyValues<O>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec.options ? { ...spec, options: spec.options.map(refusingEmpty) } : spec;
}

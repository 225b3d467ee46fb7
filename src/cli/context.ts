import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { resolveFormat, useColor, type OutputFormat } from '../output/format.js';
import type { View } from '../output/view.js';
import { writeView } from '../output/write.js';
import type { Deps } from './deps.js';

/** Options every command accepts (declared on the root program). */
export interface GlobalOptions {
  output?: string;
  color?: boolean;
  header?: boolean;
  delimiter?: string;
  crlf?: boolean;
}

/** What a command's implementation gets: the injected deps and the resolved output choices. */
export interface CommandContext {
  readonly deps: Deps;
  readonly format: OutputFormat;
  readonly color: boolean;
  /** Header line for table, csv and tsv. */
  readonly header: boolean;
  readonly delimiter: string;
  readonly eol: '\n' | '\r\n';
}

/** The csv/tsv options (--no-header, --delimiter, --crlf), checked. */
export function delimitedOptions(cmd: Command): Pick<CommandContext, 'header' | 'delimiter' | 'eol'> {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  const delimiter = opts.delimiter ?? ',';
  if ([...delimiter].length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new UsageError(`--delimiter takes one character other than a quote or line break, not '${delimiter}'`);
  }
  return { header: opts.header !== false, delimiter, eol: opts.crlf ? '\r\n' : '\n' };
}

/** Resolves the global options of the command being run. */
export function createContext(cmd: Command, deps: Deps): CommandContext {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  return {
    deps,
    format: resolveFormat(opts.output, deps.stdout.isTTY),
    color: useColor(deps.stdout.isTTY, deps.env, opts.color !== false),
    ...delimitedOptions(cmd),
  };
}

/** Runs a command's implementation and writes the view it returns. */
export async function emit(
  cmd: Command,
  deps: Deps,
  produce: (ctx: CommandContext) => View | Promise<View>,
): Promise<void> {
  const ctx = createContext(cmd, deps);
  const view = await produce(ctx);
  await writeView(deps.stdout, view, ctx);
}

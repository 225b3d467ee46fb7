import type { Command } from 'commander';
import { resolveFormat, useColor, type OutputFormat } from '../output/format.js';
import type { View } from '../output/view.js';
import { writeView } from '../output/write.js';
import type { Deps } from './deps.js';

/** Options every command accepts (declared on the root program). */
export interface GlobalOptions {
  output?: string;
  color?: boolean;
}

/** What a command's implementation gets: the injected deps and the resolved output choices. */
export interface CommandContext {
  readonly deps: Deps;
  readonly format: OutputFormat;
  readonly color: boolean;
}

/** Resolves the global options of the command being run. */
export function createContext(cmd: Command, deps: Deps): CommandContext {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  return {
    deps,
    format: resolveFormat(opts.output, deps.stdout.isTTY),
    color: useColor(deps.stdout.isTTY, deps.env, opts.color !== false),
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
  await writeView(deps.stdout, view, { format: ctx.format, color: ctx.color });
}

// TRANSITION ONLY (issue 13): the old commander-bound helpers, kept until every command has its spec. Delete with the last user.
import type { Command } from 'commander';
import type { View } from '../output/view.js';
import { writeView } from '../output/write.js';
import { createContext as createCtx, delimitedOf, type OutputSettings } from './context.js';
import type { Deps } from './deps.js';
import { toGlobals } from './globals.js';

export type CommandContext = OutputSettings & { readonly deps: Deps };

export function delimitedOptions(cmd: Command): Pick<OutputSettings, 'header' | 'delimiter' | 'eol'> {
  return delimitedOf(toGlobals(cmd.optsWithGlobals()));
}

export function createContext(cmd: Command, deps: Deps): CommandContext {
  return { deps, ...createCtx(deps, toGlobals(cmd.optsWithGlobals())).output() };
}

export async function emit(cmd: Command, deps: Deps, produce: (ctx: CommandContext) => View | Promise<View>): Promise<void> {
  const ctx = createContext(cmd, deps);
  const view = await produce(ctx);
  await writeView(deps.stdout, view, ctx);
}

export async function connectCmd(cmd: Command, deps: Deps, needs: { token: boolean }) {
  const { connect } = await import('./connection.js');
  return connect(toGlobals(cmd.optsWithGlobals()), deps, needs);
}

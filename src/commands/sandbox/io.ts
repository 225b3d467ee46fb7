/**
 * What every `svc sandbox` body gets: the deps, the process control they need,
 * the chosen output format and a way to write a view to stdout.
 */
import type { Context } from '../../cli/context.js';
import type { Deps, ProcessControl } from '../../cli/deps.js';
import { SvcError } from '../../errors.js';
import type { OutputFormat } from '../../output/format.js';
import type { View } from '../../output/view.js';

export interface SandboxIo {
  readonly deps: Deps;
  readonly proc: ProcessControl;
  readonly format: OutputFormat;
  /** Writes the command's data to stdout in the chosen format. */
  show(view: View): Promise<void>;
  /** Writes one line for people to stderr. */
  note(line: string): void;
}

/** The SandboxIo of a run; fails when the deps cannot control processes. */
export function createSandboxIo(ctx: Context): SandboxIo {
  const { deps } = ctx;
  const format = ctx.output().format;
  const proc = deps.processes;
  if (!proc) throw new SvcError('svc sandbox cannot control processes here; run it from the svc command line');
  return { deps, proc, format, show: (view) => ctx.emit(view), note: (line) => void deps.stderr.write(`${line}\n`) };
}

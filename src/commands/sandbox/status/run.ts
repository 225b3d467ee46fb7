/** `svc sandbox status`: the running sandbox as data; NotFoundError (exit 3) when none runs or it does not answer. */
import type { Context } from '../../../cli/context.js';
import { NotFoundError } from '../../../errors.js';
import type { ObjectView } from '../../../output/view.js';
import { shown } from '../../../util/shown.js';
import { resolveDataDir, sandboxCommand } from '../data-dir.js';
import { createSandboxIo, type SandboxIo } from '../io.js';
import { dataDirKind, probeSandbox, sandboxFiles, setAsideReason, stateBlocksStart } from '../state.js';
import type { SandboxStatusOptions } from './options.js';

async function statusView(dataDir: string, io: SandboxIo): Promise<ObjectView> {
  // A start there would fail ("not a directory"): not the advice to give.
  if (dataDirKind(dataDir) === 'not-a-directory') throw new NotFoundError(`no sandbox runs from ${shown(dataDir)}: it is not a directory; choose another with --data-dir`);
  const probe = await probeSandbox(dataDir, io.proc);
  const { state, alive, healthy } = probe;
  if (!state || !alive) {
    // A damaged state file, or one whose pid is another process now, is left for start, stop or reset to remove.
    const why = setAsideReason(dataDir, probe);
    const start = `start one with '${sandboxCommand('start', dataDir, io.deps.env)}'`;
    // A start would refuse a state file it cannot remove: that comes first.
    const advice = stateBlocksStart(dataDir) ? `remove ${shown(sandboxFiles(dataDir).state)}, then ${start}` : start;
    throw new NotFoundError(`no sandbox runs from ${shown(dataDir)}${why ? ` (${why})` : ''}; ${advice}`);
  }
  if (state.origin === undefined) {
    // Its process runs (and is this sandbox) but listens not yet: it seeds a new tenant. Stopping it would cancel that start.
    throw new NotFoundError(`the sandbox of ${shown(dataDir)} is starting (pid ${state.pid}; seeding a large tenant takes a while); see ${shown(sandboxFiles(dataDir).log)}`);
  }
  if (!healthy || !state.instanceUrl) {
    const log = sandboxFiles(dataDir).log;
    throw new NotFoundError(`the sandbox process ${state.pid} of ${shown(dataDir)} does not answer; see ${shown(log)} or run '${sandboxCommand('stop', dataDir, io.deps.env)}'`);
  }
  const value = {
    running: true,
    instanceUrl: state.instanceUrl,
    pid: state.pid,
    port: state.port,
    https: state.https,
    ...(state.caFile ? { caFile: state.caFile } : {}),
    dataDir,
    log: sandboxFiles(dataDir).log,
    startedAt: state.startedAt,
  };
  const details: [string, string][] = Object.entries(value).map(([k, v]) => [k, String(v)]);
  return { kind: 'object', value, details };
}

export async function runSandboxStatus(opts: SandboxStatusOptions, ctx: Context): Promise<void> {
  const io = createSandboxIo(ctx);
  await io.show(await statusView(resolveDataDir(opts.dataDir, ctx.deps.env), io));
}

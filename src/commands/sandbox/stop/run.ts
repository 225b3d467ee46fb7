/** `svc sandbox stop`: stops the sandbox of the data dir and says so on stderr; none running is not an error. */
import type { Context } from '../../../cli/context.js';
import { resolveDataDir } from '../data-dir.js';
import { createSandboxIo } from '../io.js';
import { withDataDirLock } from '../lock.js';
import { dataDirKind } from '../state.js';
import { stopSandbox } from '../stop-sandbox.js';
import type { SandboxStopOptions } from './options.js';

export async function runSandboxStop(opts: SandboxStopOptions, ctx: Context): Promise<void> {
  const io = createSandboxIo(ctx);
  const dataDir = resolveDataDir(opts.dataDir, ctx.deps.env);
  const kind = dataDirKind(dataDir);
  if (kind !== 'directory') {
    // Nothing ever ran from a path that is no directory: nothing to lock, nothing to stop.
    io.note(`no sandbox runs from ${dataDir}${kind === 'not-a-directory' ? ' (it is not a directory)' : ''}; nothing to stop`);
    return;
  }
  const { stopped, setAside } = await withDataDirLock(dataDir, 'stop', io, () => stopSandbox(dataDir, io));
  if (stopped) io.note(`sandbox stopped (pid ${stopped.pid}${stopped.instanceUrl ? `, ${stopped.instanceUrl}` : ''})`);
  else io.note(`no sandbox runs from ${dataDir}; nothing to stop${setAside ? ` (${setAside}; nothing was signalled, and the file was removed)` : ''}`);
}

/** `svc sandbox stop`: stops the sandbox of the data dir and says so on stderr; none running is not an error. */
import type { Context } from '../../../cli/context.js';
import { resolveDataDir } from '../data-dir.js';
import { createSandboxIo } from '../io.js';
import { withDataDirLock } from '../lock.js';
import { dataDirKind } from '../state.js';
import { stopSandbox } from '../stop-sandbox.js';
import { shown } from '../../../util/shown.js';
import type { SandboxStopOptions } from './options.js';

export async function runSandboxStop(opts: SandboxStopOptions, ctx: Context): Promise<void> {
  const io = createSandboxIo(ctx);
  const dataDir = resolveDataDir(opts.dataDir, ctx.deps.env);
  const kind = dataDirKind(dataDir);
  if (kind !== 'directory') {
    // Nothing ever ran from a path that is no directory: nothing to lock, nothing to stop.
    io.note(`no sandbox runs from ${shown(dataDir)}${kind === 'not-a-directory' ? ' (it is not a directory)' : ''}; nothing to stop`);
    return;
  }
  // A data dir where its lock cannot be written (a full disk) still has its sandbox stopped.
  const { stopped, setAside, left } = await withDataDirLock(dataDir, 'stop', io, () => stopSandbox(dataDir, io), { unlessUnwritable: true });
  if (stopped) io.note(`sandbox stopped (pid ${stopped.pid}${stopped.instanceUrl ? `, ${stopped.instanceUrl}` : ''})`);
  else if (setAside) io.note(`no sandbox runs from ${shown(dataDir)}; nothing to stop (${setAside}; nothing was signalled, and ${left ?? 'the file was removed'})`);
  else io.note(`no sandbox runs from ${shown(dataDir)}; nothing to stop${left ? ` (its state file names no running process, and ${left})` : ''}`);
}

/**
 * `svc sandbox reset`: stops the sandbox (if it runs), wipes its database and
 * credentials, seeds a fresh tenant, restarts it as it ran before, and prints
 * the new credentials; all holding the data dir's lock.
 */
import { rmSync } from 'node:fs';
import type { Context } from '../../../cli/context.js';
import { SvcError } from '../../../errors.js';
import { resolveDataDir, sandboxCommand } from '../data-dir.js';
import { infoView, readSandboxInfo } from '../info.js';
import { createSandboxIo, type SandboxIo } from '../io.js';
import { withDataDirLock } from '../lock.js';
import { DEFAULT_PORT } from '../options.js';
import { shown } from '../../../util/shown.js';
import { showCredentials } from '../report.js';
import { spawnSandbox } from '../spawn.js';
import { ensureDataDir, ensurePrivateDatabase, sandboxFiles } from '../state.js';
import { stopSandbox } from '../stop-sandbox.js';
import type { SandboxResetOptions } from './options.js';

/** Deletes the database (with its -wal and -shm files) and the credentials of the data dir. */
function wipe(dataDir: string): void {
  const files = sandboxFiles(dataDir);
  for (const f of [files.database, `${files.database}-wal`, `${files.database}-shm`, files.credentials]) rmSync(f, { force: true });
}

/** Seeds a fresh tenant without serving it: start on a free port and close again. */
async function seedOffline(dataDir: string, seedAccounts: number | undefined): Promise<void> {
  const { startSandbox } = await import('../../../sandbox/server.js');
  ensurePrivateDatabase(dataDir);
  const sandbox = await startSandbox({ dataDir, host: '127.0.0.1', port: 0, ...(seedAccounts !== undefined ? { seedAccounts } : {}) });
  await sandbox.close();
}

async function reset(dataDir: string, opts: SandboxResetOptions, io: SandboxIo): Promise<void> {
  const env = io.deps.env;
  const { stopped, setAside, left } = await stopSandbox(dataDir, io);
  if (left) throw new SvcError(`cannot reset the sandbox of ${shown(dataDir)}: ${setAside ?? `its state file ${shown(sandboxFiles(dataDir).state)} names no running sandbox`}, and ${left}`);
  if (setAside) io.note(`${setAside}; nothing was signalled, and the file was removed`);
  wipe(dataDir);
  const accounts = opts.seedAccounts ?? stopped?.seedAccounts;
  if (!stopped) {
    await seedOffline(dataDir, accounts);
    io.note(`sandbox data in ${shown(dataDir)} wiped and seeded again; it is not running: start it with '${sandboxCommand('start', dataDir, env)}'`);
    await io.show(infoView(readSandboxInfo(dataDir, {}, env)));
    return;
  }
  const start = {
    dataDir,
    port: stopped.port ?? DEFAULT_PORT,
    https: stopped.https,
    seedAccounts: accounts,
    oauthAccessTtlSeconds: stopped.oauthAccessTtlSeconds,
  };
  const state = await spawnSandbox(start, io);
  io.note(`sandbox reset and restarted at ${state.instanceUrl} (pid ${state.pid})`);
  await showCredentials(dataDir, state, io);
}

export async function runSandboxReset(opts: SandboxResetOptions, ctx: Context): Promise<void> {
  const io = createSandboxIo(ctx);
  const dataDir = resolveDataDir(opts.dataDir, ctx.deps.env);
  ensureDataDir(dataDir);
  await withDataDirLock(dataDir, 'reset', io, () => reset(dataDir, opts, io));
}

/**
 * `svc sandbox status`, `stop` and `reset`: look at, stop, or wipe and reseed
 * the sandbox of a data dir.
 */
import { rmSync } from 'node:fs';
import { NotFoundError } from '../../../errors.js';
import type { ObjectView } from '../../../output/view.js';
import { spawnSandbox } from './background.js';
import { pollUntil } from './health.js';
import { infoView, readSandboxInfo } from './info.js';
import type { SandboxIo } from './io.js';
import { DEFAULT_PORT } from './options.js';
import { showCredentials } from './report.js';
import { ensureDataDir, ensurePrivateDatabase, probeSandbox, removeState, sandboxFiles, type SandboxState } from './state.js';

const STOP_TIMEOUT_MS = 10_000;

/** `status`: the running sandbox as data; NotFoundError (exit 3) when none runs. */
export async function statusView(dataDir: string, io: SandboxIo): Promise<ObjectView> {
  const { state, alive, healthy } = await probeSandbox(dataDir, io.proc);
  if (!state || !alive) throw new NotFoundError(`no sandbox runs from ${dataDir}; start one with 'svc sandbox start'`);
  if (!healthy || !state.instanceUrl) {
    const log = sandboxFiles(dataDir).log;
    throw new NotFoundError(`the sandbox process ${state.pid} of ${dataDir} does not answer; see ${log} or run 'svc sandbox stop'`);
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

/** Stops the recorded process: SIGTERM, then SIGKILL after a timeout. Resolves to what it stopped, if anything. */
export async function stopSandbox(dataDir: string, io: SandboxIo): Promise<SandboxState | undefined> {
  const { state, alive } = await probeSandbox(dataDir, io.proc);
  if (!state || !alive) {
    removeState(dataDir);
    return undefined;
  }
  const gone = (): boolean => !io.proc.kill(state.pid, 0);
  io.proc.kill(state.pid, 'SIGTERM');
  if (!(await pollUntil(gone, STOP_TIMEOUT_MS, 50))) {
    io.note(`the sandbox (pid ${state.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing it`);
    io.proc.kill(state.pid, 'SIGKILL');
    await pollUntil(gone, 2_000, 50);
  }
  removeState(dataDir, state.pid);
  return state;
}

/** `stop`: stops the sandbox of the data dir; saying so when none runs is not an error. */
export async function runStop(dataDir: string, io: SandboxIo): Promise<void> {
  const stopped = await stopSandbox(dataDir, io);
  if (stopped) io.note(`sandbox stopped (pid ${stopped.pid}${stopped.instanceUrl ? `, ${stopped.instanceUrl}` : ''})`);
  else io.note(`no sandbox runs from ${dataDir}; nothing to stop`);
}

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

/** `reset`: stop (if running), wipe, reseed, restart as it ran before, and print the new credentials. */
export async function runReset(dataDir: string, seedAccounts: number | undefined, io: SandboxIo): Promise<void> {
  const stopped = await stopSandbox(dataDir, io);
  ensureDataDir(dataDir);
  wipe(dataDir);
  const accounts = seedAccounts ?? stopped?.seedAccounts;
  if (!stopped) {
    await seedOffline(dataDir, accounts);
    io.note(`sandbox data in ${dataDir} wiped and seeded again; it is not running: start it with 'svc sandbox start'`);
    await io.show(infoView(readSandboxInfo(dataDir, {})));
    return;
  }
  const opts = { dataDir, port: stopped.port ?? DEFAULT_PORT, https: stopped.https, seedAccounts: accounts };
  const state = await spawnSandbox(opts, io);
  io.note(`sandbox reset and restarted at ${state.instanceUrl} (pid ${state.pid})`);
  await showCredentials(dataDir, state, io);
}

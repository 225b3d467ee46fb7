/**
 * `svc sandbox start --foreground`: serves the sandbox from this process, one
 * log line per request on stderr, until SIGINT or SIGTERM; then closes the
 * server and the database and removes the state file. `start` runs this in a
 * detached child (SVC_SANDBOX_DETACHED=1), whose output goes to the log file.
 */
import { SvcError } from '../../../errors.js';
import { redactQueryValues } from '../../../http/redact.js';
import type { Sandbox } from '../../../sandbox/server.js';
import { shown } from '../../../util/shown.js';
import { sandboxCommand } from '../data-dir.js';
import { readSandboxInfo } from '../info.js';
import type { SandboxIo } from '../io.js';
import { isDetachedChild, withDataDirLock } from '../lock.js';
import type { StartOptions } from '../options.js';
import { reportRunning, showCredentials } from '../report.js';
import {
  clearStaleState,
  ensureDataDir,
  ensurePrivateDatabase,
  newToken,
  probeSandbox,
  processStartOf,
  removeState,
  writeState,
  type SandboxState,
} from '../state.js';
import { ensureCertificate } from './tls.js';
import { isNativeLoadFailure, nativeModuleError } from '../../../util/native-module.js';

/** A request log line with secret query values masked, by the same list and marker as svc's own verbose log. */
export function redactLogLine(line: string): string {
  return redactQueryValues(line);
}

/** A listen error as one line naming the port, or the damaged file, and the fix. */
function listenError(err: unknown, opts: StartOptions, io: SandboxIo): Error {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') return new SvcError(`port ${opts.port} is in use; stop what uses it or start with --port 0 to pick a free port`);
  if (e.code === 'EACCES' && e.syscall === 'listen') return new SvcError(`no permission to listen on port ${opts.port}; use a port above 1023 or --port 0`);
  if (isNativeLoadFailure(err)) return nativeModuleError(['better-sqlite3', 're2'], 'svc sandbox');
  // The sandbox's DAMAGED_FILE (server.ts): a database or credentials file that is not what it wrote.
  if (e.code === 'ESVCSANDBOXDAMAGED') {
    return new SvcError(`${shown(e.message)}; wipe the tenant and seed it again with '${sandboxCommand('reset', opts.dataDir, io.deps.env)}'`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Resolves with the name of the first SIGINT or SIGTERM this process receives. */
function nextSignal(io: SandboxIo): Promise<string> {
  return new Promise<string>((resolve) => {
    // processes.onceSignal also absorbs conf's repeat of the signal (see main.ts).
    const on = (signal: 'SIGINT' | 'SIGTERM') => (): void => resolve(signal);
    io.proc.onceSignal('SIGINT', on('SIGINT'));
    io.proc.onceSignal('SIGTERM', on('SIGTERM'));
  });
}

/**
 * Starts the server (TLS from the data dir under https), answering its health check with `token`, and
 * checks that the credentials it hands out can be read; a failure closes it and removes the state file.
 */
async function listen(opts: StartOptions, token: string, io: SandboxIo): Promise<{ sandbox: Sandbox; caFile?: string | undefined }> {
  let sandbox: Sandbox | undefined;
  try {
    const tls = opts.https ? await ensureCertificate(opts.dataDir, io.deps.now()) : undefined;
    const { startSandbox } = await import('../../../sandbox/server.js');
    sandbox = await startSandbox({
      dataDir: opts.dataDir,
      host: '127.0.0.1',
      port: opts.port,
      token,
      ...(tls ? { tls: { key: tls.key, cert: tls.cert } } : {}),
      ...(opts.seedAccounts !== undefined ? { seedAccounts: opts.seedAccounts } : {}),
      ...(opts.faults ? { faultRate: opts.faults } : {}),
      ...(opts.oauthAccessTtlSeconds !== undefined ? { oauthAccessTtlSeconds: opts.oauthAccessTtlSeconds } : {}),
      log: (line) => {
        if (!line.includes(' /_sandbox/health ')) io.note(redactLogLine(line));
      },
    });
    // A sandbox whose credentials cannot be handed out is of no use: it does not run.
    readSandboxInfo(opts.dataDir, {}, io.deps.env);
    return { sandbox, caFile: tls?.caFile };
  } catch (err) {
    await sandbox?.close();
    removeState(opts.dataDir, io.proc.pid);
    throw listenError(err, opts, io);
  }
}

/**
 * Claims the data dir (the state file names this process, with its token and start time) and starts
 * serving it; or, when a sandbox already runs from it, reports that one (the detached child never does:
 * its output is the log file, where credentials never go).
 */
async function claimAndListen(opts: StartOptions, io: SandboxIo): Promise<{ sandbox: Sandbox; state: SandboxState } | undefined> {
  const { proc, deps } = io;
  const probe = await probeSandbox(opts.dataDir, proc);
  if (probe.alive && probe.state && probe.state.pid !== proc.pid) {
    if (isDetachedChild(io)) throw new SvcError(`a sandbox already runs from ${shown(opts.dataDir)} (pid ${probe.state.pid}); this one does not start`);
    await reportRunning(opts.dataDir, { ...probe, state: probe.state }, io);
    return undefined;
  }
  clearStaleState(opts.dataDir, probe, io.note);
  ensurePrivateDatabase(opts.dataDir);
  const startedAt = new Date(deps.now()).toISOString();
  const token = newToken();
  const processStart = processStartOf(proc.pid);
  const identity = { token, ...(processStart ? { processStart } : {}) };
  writeState(opts.dataDir, { pid: proc.pid, https: opts.https, startedAt, ...identity });
  const { sandbox, caFile } = await listen(opts, token, io);
  const state: SandboxState = {
    pid: proc.pid,
    origin: sandbox.origin,
    port: sandbox.port,
    instanceUrl: sandbox.instanceUrl(),
    https: opts.https,
    ...(caFile ? { caFile } : {}),
    ...(opts.seedAccounts !== undefined ? { seedAccounts: opts.seedAccounts } : {}),
    ...(opts.oauthAccessTtlSeconds !== undefined ? { oauthAccessTtlSeconds: opts.oauthAccessTtlSeconds } : {}),
    startedAt,
    ...identity,
  };
  writeState(opts.dataDir, state);
  return { sandbox, state };
}

/**
 * Runs the sandbox in this process until SIGINT or SIGTERM (once it listens); then closes it and removes the
 * state file. It holds the data dir's lock until it listens (the detached child's parent holds it for it).
 */
export async function runForeground(opts: StartOptions, io: SandboxIo): Promise<void> {
  const { proc } = io;
  ensureDataDir(opts.dataDir);
  // Until it listens, SIGINT and SIGTERM keep their default and end the process at once: the seeding of a
  // new tenant runs synchronously (signal handlers would wait for its end, seconds to minutes, and then serve)
  // in one transaction, which an ended process never commits. What it leaves (the state file, the lock) names
  // a process that is gone: the next command removes it.
  const claim = (): Promise<{ sandbox: Sandbox; state: SandboxState } | undefined> => withDataDirLock(opts.dataDir, 'start --foreground', io, () => claimAndListen(opts, io));
  const serving = await (proc.defaultSignals ? proc.defaultSignals(claim) : claim());
  if (!serving) return;
  const stop = nextSignal(io);
  const { sandbox, state } = serving;
  const detached = isDetachedChild(io);
  io.note(`sandbox listening at ${state.instanceUrl} (pid ${proc.pid}, data in ${shown(opts.dataDir)})${detached ? '' : '; press Ctrl-C to stop it'}`);
  // A detached child's output is the log file: credentials never go there.
  if (!detached) await showCredentials(opts.dataDir, state, io);
  io.note(`sandbox stopping (${await stop})`);
  await sandbox.close();
  removeState(opts.dataDir, proc.pid);
  io.note('sandbox stopped');
}

/**
 * `svc sandbox start --foreground`: serves the sandbox from this process, one
 * log line per request on stderr, until SIGINT or SIGTERM; then closes the
 * server and the database and removes the state file. `start` runs this in a
 * detached child (SVC_SANDBOX_DETACHED=1), whose output goes to the log file.
 */
import { SvcError } from '../../../errors.js';
import { redactQueryValues } from '../../../http/redact.js';
import type { Sandbox } from '../../../sandbox/server.js';
import type { SandboxIo } from '../io.js';
import type { StartOptions } from '../options.js';
import { reportRunning, showCredentials } from '../report.js';
import { ensureDataDir, ensurePrivateDatabase, probeSandbox, removeState, writeState, type SandboxState } from '../state.js';
import { ensureCertificate } from './tls.js';

/** A request log line with secret query values masked, by the same list and marker as svc's own verbose log. */
export function redactLogLine(line: string): string {
  return redactQueryValues(line);
}

/** A listen error as one line naming the port and the fix. */
function listenError(err: unknown, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new SvcError(`port ${port} is in use; stop what uses it or start with --port 0 to pick a free port`);
  if (code === 'EACCES') return new SvcError(`no permission to listen on port ${port}; use a port above 1023 or --port 0`);
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

/** Starts the server (TLS from the data dir under https); a failure removes the state file. */
async function listen(opts: StartOptions, io: SandboxIo): Promise<{ sandbox: Sandbox; caFile?: string | undefined }> {
  try {
    const tls = opts.https ? await ensureCertificate(opts.dataDir, io.deps.now()) : undefined;
    const { startSandbox } = await import('../../../sandbox/server.js');
    const sandbox = await startSandbox({
      dataDir: opts.dataDir,
      host: '127.0.0.1',
      port: opts.port,
      ...(tls ? { tls: { key: tls.key, cert: tls.cert } } : {}),
      ...(opts.seedAccounts !== undefined ? { seedAccounts: opts.seedAccounts } : {}),
      ...(opts.faults ? { faultRate: opts.faults } : {}),
      ...(opts.oauthAccessTtlSeconds !== undefined ? { oauthAccessTtlSeconds: opts.oauthAccessTtlSeconds } : {}),
      log: (line) => {
        if (!line.includes(' /_sandbox/health ')) io.note(redactLogLine(line));
      },
    });
    return { sandbox, caFile: tls?.caFile };
  } catch (err) {
    removeState(opts.dataDir, io.proc.pid);
    throw listenError(err, opts.port);
  }
}

/** Runs the sandbox in this process until SIGINT or SIGTERM; then closes it and removes the state file. */
export async function runForeground(opts: StartOptions, io: SandboxIo): Promise<void> {
  const { proc, deps } = io;
  const probe = await probeSandbox(opts.dataDir, proc);
  if (probe.alive && probe.state && probe.state.pid !== proc.pid) return reportRunning(opts.dataDir, { ...probe, state: probe.state }, io);
  const stop = nextSignal(io);
  ensureDataDir(opts.dataDir);
  ensurePrivateDatabase(opts.dataDir);
  const startedAt = new Date(deps.now()).toISOString();
  writeState(opts.dataDir, { pid: proc.pid, https: opts.https, startedAt });
  const { sandbox, caFile } = await listen(opts, io);
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
  };
  writeState(opts.dataDir, state);
  const detached = deps.env.SVC_SANDBOX_DETACHED === '1';
  io.note(`sandbox listening at ${state.instanceUrl} (pid ${proc.pid}, data in ${opts.dataDir})${detached ? '' : '; press Ctrl-C to stop it'}`);
  // A detached child's output is the log file: credentials never go there.
  if (!detached) await showCredentials(opts.dataDir, state, io);
  io.note(`sandbox stopping (${await stop})`);
  await sandbox.close();
  removeState(opts.dataDir, proc.pid);
  io.note('sandbox stopped');
}

/**
 * Running `svc sandbox start --foreground` as a detached child, its output in
 * `<data dir>/sandbox.log`, and waiting until it answers: how `start` runs the
 * sandbox in the background and how `reset` restarts it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcError } from '../../errors.js';
import { interruptSignal } from '../../util/interrupt.js';
import { shown } from '../../util/shown.js';
import { sandboxCommand } from './data-dir.js';
import { pollUntil } from './health.js';
import { readSandboxInfo } from './info.js';
import type { SandboxIo } from './io.js';
import { startTimeoutMs, type StartOptions } from './options.js';
import { waitForHealthy } from './report.js';
import { removeState, sandboxFiles, writePrivateFile, type SandboxState } from './state.js';

/** bin/svc.js of this installation, found upwards from this module (dist/, dist/chunks/ or src/). */
export function findBin(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const bin = join(dir, 'bin', 'svc.js');
    if (existsSync(bin)) return bin;
    if (dirname(dir) === dir) throw new SvcError(`cannot find bin/svc.js above ${from}; reinstall svc`);
  }
}

/** The child's command line: the same options, in the foreground. */
export function foregroundArgs(opts: StartOptions): string[] {
  const args = ['sandbox', 'start', '--foreground', '--data-dir', opts.dataDir, '--port', String(opts.port)];
  if (opts.https) args.push('--https');
  if (opts.seedAccounts !== undefined) args.push('--seed-accounts', String(opts.seedAccounts));
  if (opts.faults) args.push('--faults', String(opts.faults));
  if (opts.oauthAccessTtlSeconds !== undefined) args.push('--oauth-access-ttl', `${opts.oauthAccessTtlSeconds}s`);
  return args;
}

/** The child's last error line from the log ("svc: …" without the prefix), if it wrote one. */
function lastError(logFile: string): string | undefined {
  const lines = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n') : [];
  const line = lines.reverse().find((l) => l.startsWith('svc: '));
  return line?.slice('svc: '.length);
}

/**
 * Ends a child that started but cannot be used (it is ours, just spawned), and forgets it: SIGTERM, and
 * SIGKILL when it has not ended within `graceMs` (a seeding cut short leaves nothing: it is one transaction).
 */
async function endChild(dataDir: string, pid: number, io: SandboxIo, graceMs = 5_000): Promise<void> {
  io.proc.kill(pid, 'SIGTERM');
  if (!(await pollUntil(() => !io.proc.kill(pid, 0), graceMs, 50))) {
    io.proc.kill(pid, 'SIGKILL');
    await pollUntil(() => !io.proc.kill(pid, 0), 2_000, 50);
  }
  removeState(dataDir, pid);
}

/**
 * Spawns the sandbox and resolves to its state once it answers and its credentials can be read; throws the
 * child's own error if it exits, and ends it (never leaving it running) when it does not answer or its
 * credentials cannot be read. The caller holds the data dir's lock (lock.ts) and made the data dir.
 */
export async function spawnSandbox(opts: StartOptions, io: SandboxIo): Promise<SandboxState> {
  const { log } = sandboxFiles(opts.dataDir);
  writePrivateFile(log, '');
  const env = { ...io.deps.env, SVC_SANDBOX_DETACHED: '1' };
  // Ctrl-C or SIGTERM while the child seeds: end it, rather than leave a start nobody waits for to come up unseen.
  // A closed terminal (SIGHUP) is no such request: the detached child, in a session of its own, comes up, as it
  // would have had the terminal closed a moment later.
  const interrupt = interruptSignal((signal, fn) => io.proc.onceSignal(signal, fn), '; stopped the sandbox that was starting', ['SIGINT', 'SIGTERM']);
  const pid = await io.proc.spawnDetached(io.proc.execPath, [findBin(), ...foregroundArgs(opts)], { logFile: log, env });
  const timeoutMs = startTimeoutMs(opts.seedAccounts);
  const state = await waitForHealthy(opts.dataDir, pid, io, timeoutMs, interrupt);
  if (interrupt.aborted) {
    await endChild(opts.dataDir, pid, io, 1_000);
    throw interrupt.reason;
  }
  if (state) {
    try {
      readSandboxInfo(opts.dataDir, {}, io.deps.env);
    } catch (err) {
      await endChild(opts.dataDir, pid, io);
      throw err;
    }
    return state;
  }
  if (!io.proc.kill(pid, 0)) {
    removeState(opts.dataDir, pid);
    throw new SvcError(lastError(log) ?? `the sandbox exited while starting; see ${shown(log)}`);
  }
  await endChild(opts.dataDir, pid, io);
  throw new SvcError(`the sandbox did not answer within ${Math.round(timeoutMs / 1000)} s; see ${shown(log)} (to watch a long seeding, run '${sandboxCommand('start --foreground', opts.dataDir, io.deps.env)}')`);
}

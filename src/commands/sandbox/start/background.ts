/** `svc sandbox start` without --foreground: a detached child, or the sandbox already running from the data dir. */
import type { SandboxIo } from '../io.js';
import type { StartOptions } from '../options.js';
import { reportRunning, showCredentials } from '../report.js';
import { spawnSandbox } from '../spawn.js';
import { probeSandbox, sandboxFiles } from '../state.js';

/** Starts a sandbox in the background, or reports the one already running from the data dir. */
export async function startInBackground(opts: StartOptions, io: SandboxIo): Promise<void> {
  const probe = await probeSandbox(opts.dataDir, io.proc);
  if (probe.alive && probe.state) return reportRunning(opts.dataDir, { ...probe, state: probe.state }, io);
  const state = await spawnSandbox(opts, io);
  io.note(`sandbox started at ${state.instanceUrl} (pid ${state.pid}, log in ${sandboxFiles(opts.dataDir).log})`);
  await showCredentials(opts.dataDir, state, io);
}

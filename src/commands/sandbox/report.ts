/**
 * Printing a running sandbox's credentials: after a start, or when `start`
 * finds one already running from the data dir.
 */
import { sandboxCommand } from './data-dir.js';
import { SvcError } from '../../errors.js';
import { shown } from '../../util/shown.js';
import { checkHealth, pollUntil } from './health.js';
import { infoView, readSandboxInfo, usageHint } from './info.js';
import type { SandboxIo } from './io.js';
import { START_TIMEOUT_MS } from './options.js';
import { readState, sandboxFiles, type Probe, type SandboxState } from './state.js';

/**
 * Writes the instance URL and credentials (stdout), registers the sandbox's
 * profile (`sandbox`, or `sandbox-<dir>` for another data dir: profile.ts),
 * and says how to use it (stderr; after a blank line in a table).
 */
export async function showCredentials(dataDir: string, state: SandboxState, io: SandboxIo): Promise<void> {
  const info = readSandboxInfo(dataDir, { instanceUrl: state.instanceUrl, caFile: state.caFile }, io.deps.env);
  // The profile first, so the browser sign-in line names it.
  const { profileHint, registerSandboxProfile } = await import('./profile.js');
  const profile = await registerSandboxProfile(io.deps, dataDir, info, io.note);
  await io.show(infoView(info, profile));
  const hint = usageHint(info, profile ? profileHint(profile) : undefined);
  if (io.format === 'table') io.deps.stderr.write(hint);
  else if (profile) io.note(profileHint(profile));
}

/**
 * Waits until the process recorded in the data dir answers its health check;
 * resolves to its final state, or undefined when it exited, timed out or `interrupt` was aborted.
 */
export async function waitForHealthy(dataDir: string, pid: number, io: SandboxIo, timeoutMs = START_TIMEOUT_MS, interrupt?: AbortSignal): Promise<SandboxState | undefined> {
  let ready: SandboxState | undefined;
  await pollUntil(async () => {
    if (interrupt?.aborted) return true;
    const state = readState(dataDir);
    if (state?.pid === pid && state.origin && (await checkHealth(state.origin, state.caFile, state.token))) ready = state;
    return ready !== undefined || !io.proc.kill(pid, 0);
  }, timeoutMs);
  return ready;
}

/** `start` found a sandbox running from the data dir: say so and print its credentials. */
export async function reportRunning(dataDir: string, probe: Probe & { state: SandboxState }, io: SandboxIo): Promise<void> {
  const { state } = probe;
  const ready = probe.healthy ? state : await waitForHealthy(dataDir, state.pid, io);
  if (!ready?.instanceUrl) {
    throw new SvcError(
      `the sandbox process ${state.pid} of ${shown(dataDir)} does not answer; see ${shown(sandboxFiles(dataDir).log)} or stop it with '${sandboxCommand('stop', dataDir, io.deps.env)}'`,
    );
  }
  io.note(`a sandbox already runs from ${shown(dataDir)} at ${ready.instanceUrl} (pid ${ready.pid}); '${sandboxCommand('stop', dataDir, io.deps.env)}' first to start it with other options`);
  await showCredentials(dataDir, ready, io);
}

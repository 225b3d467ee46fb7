/** Stopping the sandbox of a data dir: what `stop` does, and `reset` before it wipes. */
import { pollUntil } from './health.js';
import type { SandboxIo } from './io.js';
import { probeSandbox, removeState, type SandboxState } from './state.js';

const STOP_TIMEOUT_MS = 10_000;

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

/** Stopping the sandbox of a data dir: what `stop` does, and `reset` before it wipes (both holding the data dir's lock). */
import { pollUntil } from './health.js';
import type { SandboxIo } from './io.js';
import { probeSandbox, removeState, sameProcess, setAsideReason, type SandboxState } from './state.js';

const STOP_TIMEOUT_MS = 10_000;

/** What stopSandbox did: the sandbox it stopped, or why it removed a state file that named none. */
export interface Stopped {
  readonly stopped?: SandboxState | undefined;
  /** The state file was damaged or named another process: nothing was signalled, and it was removed (unless `left`). */
  readonly setAside?: string | undefined;
  /** Why the state file that named no sandbox could not be removed ("it cannot be removed: …; remove it"). */
  readonly left?: string | undefined;
}

/**
 * Stops the recorded process, once it is shown to be this data dir's sandbox (state.ts): SIGTERM, then
 * SIGKILL after a timeout. A state file that names no sandbox (damaged, its process gone, or its pid now
 * another process's) is removed without signalling anything.
 */
export async function stopSandbox(dataDir: string, io: SandboxIo): Promise<Stopped> {
  const probe = await probeSandbox(dataDir, io.proc);
  const { state, alive } = probe;
  if (!state || !alive) {
    return { setAside: setAsideReason(dataDir, probe), left: removeState(dataDir) };
  }
  // Gone, or (where the kernel says when a process started) its pid already names another process.
  const reused = (): boolean => sameProcess(state) === false;
  const gone = (): boolean => !io.proc.kill(state.pid, 0) || reused();
  io.proc.kill(state.pid, 'SIGTERM');
  if (!(await pollUntil(gone, STOP_TIMEOUT_MS, 50))) {
    io.note(`the sandbox (pid ${state.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing it`);
    io.proc.kill(state.pid, 'SIGKILL');
    await pollUntil(gone, 2_000, 50);
  }
  removeState(dataDir, state.pid);
  return { stopped: state };
}

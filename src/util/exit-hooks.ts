/**
 * What must be undone however the process ends, even by a process.exit()
 * that cuts a command short (a closed stdout: `svc … | head -1`; SIGTERM sent
 * a third time): a lock file this process holds (util/file-lock.ts). The
 * holder registers an undo while it holds; src/cli/main.ts runs what is left
 * when the process exits. Each undo is synchronous and best effort.
 */

const pending = new Set<() => void>();

/** Registers `undo` to run at exit; the answer unregisters it (call it once the undo is done the usual way). */
export function atExit(undo: () => void): () => void {
  pending.add(undo);
  return () => void pending.delete(undo);
}

/** Runs every undo still registered, once each (an exit listener: synchronous, never throws). */
export function runExitHooks(): void {
  for (const undo of [...pending]) {
    pending.delete(undo);
    try {
      undo();
    } catch {
      // the process ends anyway: what could not be undone is what a crash leaves
    }
  }
}

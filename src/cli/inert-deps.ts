import type { Deps } from './deps.js';

/** Deps for building the command tree without running anything: writes go nowhere. */
export function inertDeps(): Deps {
  const sink = { write: () => true, isTTY: false };
  return {
    stdout: sink,
    stderr: sink,
    stdin: { isTTY: false, async *[Symbol.asyncIterator]() {} },
    env: {},
    now: () => 0,
    configDir: '/nonexistent',
  };
}

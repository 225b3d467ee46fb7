import type { OutStream } from '../cli/deps.js';

/**
 * Resolves once `out` has taken what it buffered, after a write that returned
 * false: `if (!out.write(text)) await drained(out)`. Streamed output then
 * goes at the pace of whoever reads the pipe instead of piling up in memory
 * (pipes are asynchronous on macOS and Windows). A stream that cannot tell
 * resolves at once.
 */
export function drained(out: OutStream): Promise<void> {
  return new Promise<void>((resolve) => (out.once ? out.once('drain', resolve) : resolve()));
}

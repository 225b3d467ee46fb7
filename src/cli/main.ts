import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Deps } from './deps.js';
import { run } from './run.js';

/** The config directory: SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc. */
export function configDirFrom(env: NodeJS.ProcessEnv): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc');
}

/** The real Deps: the only place svc touches `process`. */
export function processDeps(): Deps {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    now: () => Date.now(),
    configDir: configDirFrom(process.env),
  };
}

/** Entry point used by bin/svc.js. */
export async function main(argv: readonly string[]): Promise<number> {
  // A closed pipe (svc … | head) is not an error: stop quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  return run(argv, processDeps());
}

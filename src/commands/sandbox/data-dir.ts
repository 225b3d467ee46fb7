/** Where a sandbox keeps its files when `--data-dir` is not given. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { shellQuote } from '../../util/shell-quote.js';
import { shown } from '../../util/shown.js';

/**
 * The data dir: `--data-dir`, else $SVC_SANDBOX_DIR, else $XDG_DATA_HOME/svc/sandbox,
 * else ~/.local/share/svc/sandbox; always absolute (a child process gets it as is).
 */
export function resolveDataDir(given: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (given) return resolve(given);
  if (env.SVC_SANDBOX_DIR) return resolve(env.SVC_SANDBOX_DIR);
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return resolve(dataHome, 'svc', 'sandbox');
}

/** `svc sandbox VERB` as a user would type it for this data dir (with --data-dir unless it is the default one), as messages show it. */
export function sandboxCommand(verb: string, dataDir: string, env: Readonly<Record<string, string | undefined>>): string {
  if (dataDir === resolveDataDir(undefined, env)) return `svc sandbox ${verb}`;
  return `svc sandbox ${verb} --data-dir ${shown(shellQuote(dataDir), 1000)}`;
}

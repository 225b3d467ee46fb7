/**
 * Opening a URL in the person's browser: the commands of `$BROWSER` (a
 * colon-separated list, each with `%s` for the URL or taking it as its last
 * argument, as sensible-browser and Python's webbrowser read it), else the
 * platform's opener (xdg-open, open, or Windows' start). Never through a
 * shell; the first command that starts wins.
 */
import type { Deps } from './deps.js';

/** The commands to try, each as program and arguments. */
export function browserCommands(url: string, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): string[][] {
  const fromEnv = (env.BROWSER ?? '')
    .split(platform === 'win32' ? ';' : ':')
    .map((c) => c.trim().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0)
    .map((words) => (words.some((w) => w.includes('%s')) ? words.map((w) => w.replaceAll('%s', url)) : [...words, url]));
  if (fromEnv.length > 0) return fromEnv;
  if (platform === 'darwin') return [['open', url]];
  // cmd reads & | < > ^ ( ) as its own (an instance URL's path may hold them): each goes through escaped with ^.
  if (platform === 'win32') return [['cmd', '/c', 'start', '""', url.replace(/[&|<>^()]/g, '^$&')]];
  return [['xdg-open', url]];
}

/** Opens the URL; false when no command could be started (the caller shows the URL anyway). */
export async function openInBrowser(deps: Deps, url: string): Promise<boolean> {
  const processes = deps.processes;
  if (!processes) return false;
  for (const [command, ...args] of browserCommands(url, deps.env, processes.platform)) {
    if (command && (await processes.spawnQuiet(command, args))) return true;
  }
  return false;
}

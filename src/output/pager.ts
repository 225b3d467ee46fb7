/**
 * Tables on a terminal go through a pager, as gh and git do: $SVC_PAGER, else
 * $PAGER, else `less -FRX` (-F quits at once when the table fits the screen).
 * `--no-pager`, or a pager of `cat` or nothing, writes straight to the
 * terminal; so does a pager that cannot be started. Only table output on a
 * terminal is paged (src/output/write.ts decides), never JSON or CSV, nor a
 * pipe, nor an export (which streams to stdout itself).
 */

/**
 * Starts a pager: `command args…` with its standard input a pipe and its
 * output the terminal's. Resolves to a function that writes the text to it,
 * closes its input and resolves once the pager has exited; undefined when it
 * could not be started. Provided by src/cli/main.ts (it spawns a process).
 */
export type SpawnPager = (
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
) => Promise<((text: string) => Promise<void>) | undefined>;

/** Writes the text through the pager; false when none could be started (the caller writes it itself). */
export type Pager = (text: string) => Promise<boolean>;

export const DEFAULT_PAGER = 'less -FRX';

/**
 * A command line split into words as a POSIX shell would, for quotes and
 * backslashes only (no variables, globs or redirections); undefined when a
 * quote is left open.
 */
export function splitCommand(text: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1] as string)) i++;
        word += text[i];
      }
      if (i >= text.length) return undefined;
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The pager's words from the environment, or undefined when paging is off (--no-pager, cat, empty). */
export function pagerCommand(env: Readonly<Record<string, string | undefined>>, enabled: boolean): string[] | undefined {
  if (!enabled) return undefined;
  const words = splitCommand(env.SVC_PAGER ?? env.PAGER ?? DEFAULT_PAGER);
  if (!words || words.length === 0 || words[0] === 'cat') return undefined;
  return words;
}

/**
 * The pager of a run, or undefined when there is none (paging off, or no way to
 * start a process). less gets LESS=FRX and lv gets -c when the user set
 * neither, as gh does, so that a bare PAGER=less behaves like the default.
 */
export function createPager(spawn: SpawnPager | undefined, env: Readonly<Record<string, string | undefined>>, enabled: boolean): Pager | undefined {
  const words = spawn && pagerCommand(env, enabled);
  if (!spawn || !words) return undefined;
  const [command, ...args] = words as [string, ...string[]];
  const pagerEnv = { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' };
  return async (text) => {
    const page = await spawn(command, args, pagerEnv).catch(() => undefined);
    if (!page) return false;
    await page(text);
    return true;
  };
}

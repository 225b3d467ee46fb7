/**
 * Questions on a terminal: a line of text, or a secret typed without echo.
 * Only on a terminal; scripts pass flags or stdin instead, and svc never waits
 * on a pipe.
 */
import { InterruptedError, UsageError } from '../errors.js';
import type { Deps } from './deps.js';

/** Whether svc may ask the user: stdin and stderr are both a terminal. */
export function canPrompt(deps: Deps): boolean {
  return deps.stdin.isTTY && deps.stderr.isTTY;
}

/** Typed-ahead input after the line a prompt read (a paste can hold several lines). */
const pending = new WeakMap<object, string>();

/** Consumes text up to a line end; returns the line, or undefined when it needs more. */
function take(stdin: object, text: string, line: { value: string }): string | undefined {
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    if (ch === '\u0003') throw new InterruptedError();
    if (ch === '\u0004' && line.value === '') throw new UsageError('no input given');
    if (ch === '\r' || ch === '\n') {
      const rest = chars.slice(i + 1).join('').replace(/^\n/, '');
      if (rest) pending.set(stdin, rest);
      return line.value;
    }
    if (ch === '\u007f' || ch === '\b') line.value = [...line.value].slice(0, -1).join('');
    else if (ch >= ' ') line.value += ch;
  }
  return undefined;
}

async function readLine(deps: Deps, hidden: boolean): Promise<string> {
  const raw = hidden && deps.stdin.setRawMode ? deps.stdin.setRawMode : undefined;
  raw?.call(deps.stdin, true);
  const line = { value: '' };
  try {
    const ahead = pending.get(deps.stdin);
    pending.delete(deps.stdin);
    const done = ahead === undefined ? undefined : take(deps.stdin, ahead, line);
    if (done !== undefined) return done;
    for await (const chunk of deps.stdin) {
      const got = take(deps.stdin, typeof chunk === 'string' ? chunk : chunk.toString('utf8'), line);
      if (got !== undefined) return got;
    }
    return line.value;
  } finally {
    raw?.call(deps.stdin, false);
    if (hidden) deps.stderr.write('\n');
  }
}

/** Asks a question on stderr and reads the answer; `hidden` for secrets (no echo). */
export async function ask(deps: Deps, question: string, opts: { hidden?: boolean } = {}): Promise<string> {
  deps.stderr.write(`${question}: `);
  return (await readLine(deps, opts.hidden === true)).trim();
}

/** All of stdin as text, without one trailing line break (for --password-stdin). */
export async function readAllStdin(deps: Deps): Promise<string> {
  let text = '';
  for await (const chunk of deps.stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text.replace(/\r?\n$/, '');
}

/**
 * Writing a batch of lines: the state they change is applied only once the
 * stream took them; a stream that reports its reader gone (EPIPE) at once
 * gets the state before the batch saved and the watch ended quietly.
 */
import { describe, expect, it } from 'vitest';
import type { OutStream } from '../../src/output/io.js';
import { OutputClosed, writeLines } from '../../src/watch/lines.js';
import { freshState, type WatchState } from '../../src/watch/state.js';

/** A pipe whose reader is gone after `accepts` writes, as a stream that says so at once. */
function pipe(accepts: number): OutStream & { text: string } {
  let errored: NodeJS.ErrnoException | undefined;
  return {
    text: '',
    isTTY: false,
    write(chunk) {
      if (accepts-- > 0) {
        this.text += String(chunk);
        return true;
      }
      errored = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
      return false;
    },
    get writableErrored() {
      return errored;
    },
  };
}

describe('writeLines', () => {
  it('applies a batch once written, and on a closed pipe saves the state before it and stops', async () => {
    const out = pipe(1);
    const state = freshState(null);
    const saved: string[] = [];
    let closed = 0;
    const sink = { out, state, signal: new AbortController().signal, save: (s: WatchState) => void saved.push([...s.known].join(',')), onClosed: () => void closed++ };
    await writeLines(sink, ['a\n'], [() => void state.known.add(1)]);
    expect([out.text, [...state.known]]).toEqual(['a\n', [1]]);
    await expect(writeLines(sink, ['b\n'], [() => void state.known.add(2)])).rejects.toBeInstanceOf(OutputClosed);
    expect([out.text, [...state.known], saved, closed]).toEqual(['a\n', [1], ['1'], 1]);
  });

  it('on a terminal writes C1, bidi controls and line separators in its JSON as \\uXXXX (the same JSON); in a pipe the bytes unchanged', async () => {
    const line = `${JSON.stringify({ op: 'upsert', record: { d: 'total \u202e0001\u202c \u009b2J x\u2028y\u007f' } })}\n`;
    for (const tty of [true, false]) {
      const out = { ...pipe(5), isTTY: tty };
      await writeLines({ out, state: freshState(null), signal: new AbortController().signal, save: () => undefined }, [line, line], []);
      if (tty) {
        expect(out.text).not.toMatch(/[\u007f-\u009f\u2028\u202c\u202e]/);
        expect(out.text).toBe(`${line}${line}`.replace(/[\u007f-\u009f\u2028\u202c\u202e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
        expect(JSON.parse(out.text.split('\n')[0] ?? '')).toEqual(JSON.parse(line));
      } else expect(out.text).toBe(`${line}${line}`);
    }
  });

  it('writes nothing once interrupted', async () => {
    const out = pipe(5);
    const controller = new AbortController();
    controller.abort(new Error('interrupted by SIGINT'));
    const state = freshState(null);
    await expect(writeLines({ out, state, signal: controller.signal, save: () => undefined }, ['a\n'], [() => void state.known.add(1)])).rejects.toThrow('interrupted by SIGINT');
    expect([out.text, state.known.size]).toEqual(['', 0]);
  });
});

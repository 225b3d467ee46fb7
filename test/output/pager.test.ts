/** Choosing the pager (src/output/pager.ts): its words, when paging is off, what it is given. */
import { describe, expect, it } from 'vitest';
import { createPager, pagerCommand, splitCommand, type SpawnPager } from '../../src/output/pager.js';

describe('splitCommand', () => {
  it('splits on blanks and keeps quoted words whole, as a shell does', () => {
    expect(splitCommand('less -FRX')).toEqual(['less', '-FRX']);
    expect(splitCommand('  most\t -s ')).toEqual(['most', '-s']);
    expect(splitCommand(`sh -c 'cat > "$0"' /tmp/out file`)).toEqual(['sh', '-c', 'cat > "$0"', '/tmp/out', 'file']);
    expect(splitCommand('"/opt/my pager/bin/p" --x="a b" c\\ d')).toEqual(['/opt/my pager/bin/p', '--x=a b', 'c d']);
    expect(splitCommand(`"a\\"b" 'it''s'`)).toEqual(['a"b', 'its']);
    expect(splitCommand('')).toEqual([]);
    expect(splitCommand("''")).toEqual(['']);
  });

  it('is undefined for an open quote', () => {
    expect(splitCommand("less 'unterminated")).toBeUndefined();
    expect(splitCommand('less "unterminated')).toBeUndefined();
  });
});

describe('pagerCommand', () => {
  it('is less -FRX by default, $PAGER when set, and $SVC_PAGER over both', () => {
    expect(pagerCommand({}, true)).toEqual(['less', '-FRX']);
    expect(pagerCommand({ PAGER: 'more' }, true)).toEqual(['more']);
    expect(pagerCommand({ PAGER: 'more', SVC_PAGER: 'most -s' }, true)).toEqual(['most', '-s']);
  });

  it('is off with --no-pager, with cat, with an empty value, or a quote left open', () => {
    expect(pagerCommand({}, false)).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat' }, true)).toBeUndefined();
    expect(pagerCommand({ PAGER: '' }, true)).toBeUndefined();
    expect(pagerCommand({ PAGER: '  ' }, true)).toBeUndefined();
    expect(pagerCommand({ PAGER: 'less', SVC_PAGER: '' }, true)).toBeUndefined();
    expect(pagerCommand({ PAGER: 'less', SVC_PAGER: 'cat' }, true)).toBeUndefined();
    expect(pagerCommand({ PAGER: "less '" }, true)).toBeUndefined();
  });
});

describe('createPager', () => {
  it('starts the command with LESS=FRX and LV=-c unless the user set them, and hands it the text', async () => {
    const calls: { command: string; args: readonly string[]; env: Readonly<Record<string, string | undefined>>; text?: string }[] = [];
    const spawn: SpawnPager = async (command, args, env) => {
      const call: (typeof calls)[number] = { command, args, env };
      calls.push(call);
      return async (text) => {
        call.text = text;
      };
    };
    expect(await createPager(spawn, { PAGER: 'less', HOME: '/h' }, true)?.('table\n')).toBe(true);
    expect(await createPager(spawn, { PAGER: 'less', LESS: 'R', LV: '' }, true)?.('t')).toBe(true);
    expect(calls.map((c) => [c.command, c.args, c.env.LESS, c.env.LV, c.env.HOME, c.text])).toEqual([
      ['less', [], 'FRX', '-c', '/h', 'table\n'],
      ['less', [], 'R', '', undefined, 't'],
    ]);
  });

  it('answers false when the pager cannot be started, so the caller writes the text itself', async () => {
    expect(await createPager(async () => undefined, {}, true)?.('x')).toBe(false);
    expect(await createPager(() => Promise.reject(new Error('EACCES')), {}, true)?.('x')).toBe(false);
  });

  it('is absent without a way to start processes, or when paging is off', () => {
    expect(createPager(undefined, {}, true)).toBeUndefined();
    expect(createPager(async () => undefined, { PAGER: 'cat' }, true)).toBeUndefined();
    expect(createPager(async () => undefined, {}, false)).toBeUndefined();
  });
});

/**
 * Extension values against numbers. The service keeps an extension value
 * that reads as a number as that number (dbref: extdatanumeric.number beside
 * its text), so a number in a filter compares with it numerically, however
 * the value was sent ("3" or 3); a text that is no number matches no number.
 * A text in a filter compares with texts, as before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { rows } from './query-fixture.js';

const s = useTestSandbox();
const ids: Record<string, number> = {};

beforeAll(async () => {
  const values: Record<string, unknown> = { text3: '3', text20: ' 20 ', num3: 3, num20: 20, word: 'abc', big: 9007199254740994, bigText: '9007199254740994', exp: '1e2' };
  for (const [name, score] of Object.entries(values)) {
    const r = await s.call('PUT', 'api/v1/opportunities', { json: { name: `XN ${name}`, extdata: { score } } });
    expect(r.status, r.text).toBe(201);
    ids[name] = r.json<{ ID: number }>().ID;
  }
});

async function matching(condition: unknown): Promise<string[]> {
  const found = await rows(s, 'opportunities', { filter: { name: { '~~': 'XN %' }, 'extdata.score': condition }, fields: ['ID'], limit: 100 });
  const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]));
  return found.map((r) => byId.get(r.ID as number) ?? '?').sort();
}

describe('extdata: numbers compare with numbers, and with texts that read as numbers', () => {
  it('> < = with a JSON number', async () => {
    expect(await matching({ '>': 10 })).toEqual(['big', 'bigText', 'exp', 'num20', 'text20'].sort());
    expect(await matching({ '<': 10 })).toEqual(['num3', 'text3']);
    expect(await matching(3)).toEqual(['num3', 'text3']);
    expect(await matching({ '=': 100 })).toEqual(['exp']);
  });

  it('a text that is no number matches no number, not even with != (as a comparison with null)', async () => {
    expect(await matching({ '!=': 3 })).toEqual(['big', 'bigText', 'exp', 'num20', 'text20'].sort());
  });

  it('whole numbers past 2^53 compare exactly', async () => {
    expect(await matching(9007199254740994)).toEqual(['big', 'bigText']);
    expect(await matching({ '>': 9007199254740992 })).toEqual(['big', 'bigText']);
  });

  it('IN and !IN lists of numbers', async () => {
    expect(await matching([3, 100])).toEqual(['exp', 'num3', 'text3']);
    expect(await matching({ '!IN': [3, 100, 9007199254740994] })).toEqual(['num20', 'text20', 'word'].sort());
  });

  it('texts still compare with texts', async () => {
    expect(await matching('abc')).toEqual(['word']);
    expect(await matching('3')).toEqual(['num3', 'text3']);
  });
});

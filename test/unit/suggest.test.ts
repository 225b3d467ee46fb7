import { describe, expect, it } from 'vitest';
import { didYouMean, distance, suggest } from '../../src/util/suggest.js';

describe('did-you-mean', () => {
  it('counts edits and adjacent swaps', () => {
    expect(distance('lastname', 'lastname')).toBe(0);
    expect(distance('lastnme', 'lastname')).toBe(1);
    expect(distance('lsatname', 'lastname')).toBe(1);
    expect(distance('', 'abc')).toBe(3);
  });

  it('suggests close names best first, and nothing for unrelated words', () => {
    expect(suggest('acounts', ['accounts', 'contacts', 'actionsteps'])).toEqual(['accounts']);
    expect(suggest('contact', ['contacts', 'contacts2contacts', 'contracts'])[0]).toBe('contacts');
    expect(suggest('zzzzzz', ['accounts', 'contacts'])).toEqual([]);
    expect(suggest('', ['accounts'])).toEqual([]);
    expect(didYouMean('TYPE', ['type', 'city'])).toBe("; did you mean 'type'?");
    expect(didYouMean('qqq', ['type'])).toBe('');
  });
});

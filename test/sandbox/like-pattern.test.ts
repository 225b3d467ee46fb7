/**
 * The backtracking-free LIKE matcher (src/sandbox/like-pattern.ts) decides
 * exactly what the one-regular-expression form it replaced decides, checked
 * on seeded random patterns and texts over a small alphabet (where % and _
 * interact most), with case folding on and off.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLike } from '../../src/sandbox/like-pattern.js';

/** The former implementation: `^…$` with % as [\s\S]* and _ as [\s\S]; exponential on some inputs, fine on short ones. */
function referenceLike(pattern: string, ignoreCase: boolean): RegExp {
  let src = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\' && i + 1 < pattern.length) src += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (ch === '%') src += '[\\s\\S]*';
    else if (ch === '_') src += '[\\s\\S]';
    else src += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, ignoreCase ? 'iu' : 'u');
}

const seed = Number(process.env.SVC_FUZZ_SEED ?? 20261123);

describe('LIKE matcher', () => {
  it(`agrees with the regular-expression form (seed ${seed}; replay with SVC_FUZZ_SEED=<n>)`, () => {
    const patternChar = fc.constantFrom('a', 'b', 'A', 'ß', 'ẞ', '😀', '%', '_', '\\', '.', '*', '(', '[');
    const textChar = fc.constantFrom('a', 'b', 'A', 'B', 'ß', 'ẞ', '😀', '.', '*', '\\', '%', '_', '\n');
    fc.assert(
      fc.property(fc.array(patternChar, { maxLength: 8 }), fc.array(textChar, { maxLength: 10 }), fc.boolean(), (p, t, ci) => {
        const pattern = p.join('');
        const text = t.join('');
        expect(compileLike(pattern, ci).test(text)).toBe(referenceLike(pattern, ci).test(text));
      }),
      { seed, numRuns: 3000 },
    );
  });

  it('decides a pattern of many % runs over a long text without backtracking', () => {
    const text = 'a'.repeat(100_000);
    expect(compileLike(`${'%a'.repeat(50)}%b`, false).test(text)).toBe(false);
    expect(compileLike(`${'%a'.repeat(50)}%`, false).test(text)).toBe(true);
    expect(compileLike(`${'%_'.repeat(50)}%b`, true).test(text)).toBe(false);
  });
});

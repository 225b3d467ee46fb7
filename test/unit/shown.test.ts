/**
 * shown(): outside text in a one-line message. A lone half of a surrogate pair (V8's JSON.parse quotes the
 * first half of an emoji as the "unexpected token"; a cut at `max` can split a pair) is shown as '?', so the
 * message is the same text in-process and written to a pipe (where Node would write U+FFFD).
 */
import { describe, expect, it } from 'vitest';
import { shown } from '../../src/util/shown.js';

describe('shown', () => {
  it('keeps whole surrogate pairs and replaces lone halves with ?', () => {
    expect(shown('👍🏽 ok')).toBe('👍🏽 ok');
    expect(shown('\ud83d')).toBe('?');
    expect(shown('a\udc4db')).toBe('a?b');
    expect(shown('x\ud83d\ud83d\udc4d')).toBe('x?\ud83d\udc4d');
  });

  it('a cut inside a pair leaves no lone half', () => {
    expect(shown('ab👍', 3)).toBe('ab?…');
  });

  it('what JSON.parse says about an emoji is shown without a lone surrogate', () => {
    let message = '';
    try {
      JSON.parse('👍🏽');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(shown(message)).toBe(Buffer.from(shown(message), 'utf8').toString('utf8'));
    expect(shown(message)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(shown(message)).toContain("token '?'");
  });

  it('acting characters are still ?', () => {
    expect(shown('a\u001b[31mb\u202ec')).toBe('a?[31mb?c');
  });
});

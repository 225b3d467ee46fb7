import { describe, expect, it } from 'vitest';
import { ByteBuilder } from '../../src/export/byte-builder.js';
import { JsonArrayReader, JsonDepthError, MAX_ANSWER_DEPTH, ObjectArrayReader } from '../../src/http/json-array.js';
import { createRandom } from '../../src/util/random.js';

const PIECES = ['a', 'é', '東', '😀', '"', '\\', ',', ']', '[', '{', '}', ' ', '\n', '\t', '\u0000', '\u2028'];

function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 2 || r < 0.3) {
    const k = Math.floor(next() * 5);
    if (k === 0) return null;
    if (k === 1) return next() < 0.5;
    if (k === 2) return Math.round((next() - 0.5) * 1e6) / 100;
    return Array.from({ length: Math.floor(next() * 6) }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
  }
  if (r < 0.45) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, (_, i) => [`k${i}${PIECES[Math.floor(next() * PIECES.length)]}`, randomValue(next, depth + 1)]));
}

const READERS = { ObjectArrayReader, JsonArrayReader } as const;

/** Feeds the bytes in random cuts (often inside a multi-byte character or an escape). */
function readInCuts(Reader: (typeof READERS)[keyof typeof READERS], bytes: Buffer, next: () => number): unknown {
  const reader = new Reader();
  let at = 0;
  while (at < bytes.length) {
    const size = 1 + Math.floor(next() * 12);
    reader.feed(bytes.subarray(at, at + size));
    at += size;
  }
  return reader.end();
}

/** Records like the service's, with braces, brackets, commas and quotes inside strings and nested values. */
function randomRecord(next: () => number): Record<string, unknown> {
  const tricky = ['},{', '}]', '"},{"', '{"a":1}', '\\"}', 'x', 'é東😀'];
  const pick = (): string => tricky[Math.floor(next() * tricky.length)] ?? '';
  return { ID: Math.floor(next() * 1e6), name: pick() + pick(), meta: next() < 0.3 ? { a: [{ b: pick() }, { c: null }] } : pick(), n: next() < 0.5 ? null : next() };
}

describe.each(Object.entries(READERS))('%s', (_name, Reader) => {
  it('reads what JSON.parse reads, however the bytes are cut, with any spacing', () => {
    const random = createRandom(11);
    for (let i = 0; i < 1500; i++) {
      const r = random.next();
      const value =
        r < 0.45
          ? Array.from({ length: Math.floor(random.next() * 6) }, () => randomValue(random.next, 0))
          : r < 0.9
            ? Array.from({ length: Math.floor(random.next() * 8) }, () => randomRecord(random.next))
            : randomValue(random.next, 0);
      const text = random.next() < 0.5 ? JSON.stringify(value) : JSON.stringify(value, null, 1 + Math.floor(random.next() * 3));
      expect(readInCuts(Reader, Buffer.from(text), random.next), text).toEqual(JSON.parse(text));
    }
  });

  it('throws a SyntaxError on malformed or cut-off arrays, as JSON.parse does', () => {
    for (const bad of ['[1,]', '[1 2]', '[{"a":1}', '[1]x', '[', '[,1]', '{"a":', '[{"a":1},]', '[{"a":1} {"b":2}]', '[{"a":"}]"']) {
      const reader = new Reader();
      expect(() => {
        reader.feed(Buffer.from(bad));
        reader.end();
      }, bad).toThrow(SyntaxError);
    }
  });
});

describe('JsonArrayReader', () => {

  it('passes each element through `each` as it completes', () => {
    const seen: unknown[] = [];
    const reader = new JsonArrayReader((e) => {
      seen.push(e);
      return (e as { ID: number }).ID;
    });
    reader.feed(Buffer.from('[{"ID":1,"s":"a,]"},'));
    expect(seen).toEqual([{ ID: 1, s: 'a,]' }]);
    reader.feed(Buffer.from(' {"ID":2}]\n'));
    expect(reader.end()).toEqual([1, 2]);
  });

  it('hands a record larger than a megabyte to the general reader without losing a byte', () => {
    const big = { ID: 1, content: 'é'.repeat(700_000) };
    const text = JSON.stringify([{ ID: 0 }, big, { ID: 2 }]);
    const random = createRandom(3);
    const reader = new ObjectArrayReader();
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 65_536) reader.feed(bytes.subarray(at, at + 65_536));
    expect(reader.end()).toEqual([{ ID: 0 }, big, { ID: 2 }]);
    expect(readInCuts(ObjectArrayReader, Buffer.from(JSON.stringify([{ a: '}'.repeat(50) }])), random.next)).toEqual([{ a: '}'.repeat(50) }]);
  });
});

describe('nesting', () => {
  const nested = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
  const read = (Reader: (typeof READERS)[keyof typeof READERS], text: string, cut: number): unknown => {
    const reader = new Reader();
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += cut) reader.feed(bytes.subarray(at, at + cut));
    return reader.end();
  };

  it.each(Object.entries(READERS))('%s refuses a value nested deeper than MAX_ANSWER_DEPTH, whole or as an element, in one chunk or many', (_name, Reader) => {
    const deep = nested(MAX_ANSWER_DEPTH + 1);
    for (const text of [`{"x":${deep}}`, `[{"ID":1},{"ID":2,"x":${deep}}]`, `[1,${deep}]`]) {
      for (const cut of [1 << 20, 7]) expect(() => read(Reader, text, cut), `${text.slice(0, 30)} in cuts of ${cut}`).toThrow(JsonDepthError);
    }
  });

  it.each(Object.entries(READERS))('%s reads a value nested to the limit, and many brackets inside strings', (_name, Reader) => {
    const within = nested(MAX_ANSWER_DEPTH - 1);
    expect(read(Reader, `[{"ID":1,"x":${within}}]`, 5)).toHaveLength(1);
    const brackets = JSON.stringify({ ID: 1, s: '[{'.repeat(5000) });
    expect(read(Reader, `[${brackets}]`, 1 << 20)).toEqual([JSON.parse(brackets)]);
  });
});

describe('ByteBuilder', () => {
  it('gives the UTF-8 bytes of everything appended, across blocks', () => {
    const b = new ByteBuilder();
    const parts: string[] = [];
    for (let i = 0; i < 5000; i++) parts.push(`${i},é東😀,"x"\n`);
    parts.push('y'.repeat(200_000));
    for (const p of parts) b.append(p);
    const expected = Buffer.from(parts.join(''));
    expect(b.length).toBe(expected.length);
    expect(b.bytes().equals(expected)).toBe(true);
    expect(new ByteBuilder().bytes().length).toBe(0);
  });
});

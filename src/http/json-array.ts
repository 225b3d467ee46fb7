/**
 * Reading a JSON array from a byte stream element by element. A page of a
 * thousand records arrives as a few hundred kilobytes; parsed whole, its text
 * is one large string that outlives a garbage collection and lands in the old
 * generation, so a long export's memory grows until a full collection. Here
 * each element's bytes are cut out as they arrive and parsed alone, so every
 * string is small and dies young.
 *
 * Two ways to find an element's end. Records are objects: the fast way jumps
 * from one closing brace to the next (a native search) and takes the first
 * one followed by a comma or the closing bracket whose bytes JSON.parse
 * accepts; a brace inside a string or a nested value leaves an unterminated
 * string or bracket behind it, which JSON.parse refuses, so the search goes on.
 * Anything else (other elements, an element larger than a megabyte) goes the
 * general way: a byte scan for brackets and quotes (UTF-8 continuation bytes
 * never look like either). A body that is not an array (an error, a count)
 * is parsed whole.
 *
 * A value nested deeper than MAX_ANSWER_DEPTH is refused (JsonDepthError):
 * JSON.parse reads any depth, but JSON.stringify and the formatters recurse
 * and would run out of stack. Checked only where it could be so: a value of
 * n bytes nests at most n/2 levels, and at most as deep as it has opening
 * brackets (counted with a native search), so records pay nothing.
 */
import { nestsDeeperThan } from '../util/json-depth.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** The deepest nesting svc reads in an answer: far more than a record needs, far less than exhausts the stack. */
export const MAX_ANSWER_DEPTH = 1000;

/** An answer nested deeper than MAX_ANSWER_DEPTH. */
export class JsonDepthError extends Error {
  constructor() {
    super(`JSON nested more than ${MAX_ANSWER_DEPTH} levels deep`);
    this.name = 'JsonDepthError';
  }
}

/** Whether bytes start..end hold more than `max` opening brackets (strings included: an upper bound of the depth). */
function bracketsPast(buf: Buffer, start: number, end: number, max: number): boolean {
  let n = 0;
  for (const b of [OPEN_OBJECT, OPEN_ARRAY]) {
    for (let i = buf.indexOf(b, start); i >= 0 && i < end; i = buf.indexOf(b, i + 1)) if (++n > max) return true;
  }
  return false;
}

/** `value`, parsed from bytes start..end, unless it nests deeper than svc reads. */
function checkedDepth<T>(value: T, buf: Buffer, start: number, end: number): T {
  if (end - start > 2 * MAX_ANSWER_DEPTH && bracketsPast(buf, start, end, MAX_ANSWER_DEPTH) && nestsDeeperThan(value, MAX_ANSWER_DEPTH)) throw new JsonDepthError();
  return value;
}

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

type Phase = 'start' | 'value' | 'comma' | 'element' | 'end' | 'whole';

/**
 * A splitter fed chunk by chunk; `end()` gives the array, each element passed
 * through `each` as soon as it is complete (so it can be turned into what the
 * caller keeps while it is still young). Throws SyntaxError on malformed JSON.
 */
export class JsonArrayReader {
  private phase: Phase = 'start';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Bytes of the element being read that came in earlier chunks (or the whole body when it is not an array). */
  private parts: Buffer[] = [];

  constructor(
    private readonly each: (element: unknown) => unknown = (e) => e,
    /** The elements so far (shared with a fast reader that hands over mid-array). */
    readonly items: unknown[] = [],
  ) {}

  /** A reader that continues an array at an element's start, after `items`. */
  static continuing(each: (element: unknown) => unknown, items: unknown[]): JsonArrayReader {
    const reader = new JsonArrayReader(each, items);
    reader.phase = 'value';
    return reader;
  }

  feed(chunk: Buffer): void {
    if (this.phase === 'whole') {
      this.parts.push(chunk);
      return;
    }
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      const b = chunk[i] as number;
      if (this.phase === 'element') {
        i = this.scan(chunk, i);
        continue;
      }
      if (isSpace(b)) {
        i++;
        continue;
      }
      switch (this.phase) {
        case 'start':
          if (b !== OPEN_ARRAY) {
            this.phase = 'whole';
            this.parts.push(chunk.subarray(i));
            return;
          }
          this.phase = 'value';
          i++;
          break;
        case 'value':
          if (b === CLOSE_ARRAY && this.items.length === 0) {
            this.phase = 'end';
            i++;
            break;
          }
          this.phase = 'element';
          this.depth = 0;
          this.inString = false;
          this.escaped = false;
          i = this.scan(chunk, i);
          break;
        case 'comma':
          if (b === COMMA) this.phase = 'value';
          else if (b === CLOSE_ARRAY) this.phase = 'end';
          else throw new SyntaxError(`unexpected byte ${b} between the elements of a JSON array`);
          i++;
          break;
        default:
          throw new SyntaxError('unexpected data after a JSON array');
      }
    }
  }

  /**
   * Scans an element from `from` to its end (a comma, bracket or space at
   * depth 0 outside a string); parses it when it ends in this chunk, else
   * keeps its bytes so far. Returns where scanning stopped.
   */
  private scan(chunk: Buffer, from: number): number {
    const n = chunk.length;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    for (let i = from; i < n; i++) {
      const b = chunk[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
      else if ((b === CLOSE_OBJECT || b === CLOSE_ARRAY) && depth > 0) depth--;
      else if (depth === 0 && (b === COMMA || b === CLOSE_ARRAY || isSpace(b))) {
        this.finish(chunk, from, i);
        return i;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.parts.push(chunk.subarray(from));
    return n;
  }

  private finish(chunk: Buffer, from: number, to: number): void {
    let buf = chunk;
    let start = from;
    let end = to;
    if (this.parts.length > 0) {
      this.parts.push(chunk.subarray(from, to));
      buf = Buffer.concat(this.parts);
      start = 0;
      end = buf.length;
      this.parts = [];
    }
    this.items.push(this.each(checkedDepth(JSON.parse(buf.toString('utf8', start, end)), buf, start, end)));
    this.phase = 'comma';
  }

  /** The array (or, for a body that is not one, the parsed body). */
  end(): unknown {
    if (this.phase === 'whole') {
      const whole = Buffer.concat(this.parts);
      return checkedDepth(JSON.parse(whole.toString('utf8')), whole, 0, whole.length);
    }
    if (this.phase !== 'end') throw new SyntaxError('unexpected end of a JSON array');
    return this.items;
  }
}

/** An element whose bytes grew past this without ending goes to the general reader. */
const FAST_LIMIT = 1024 * 1024;
const REFUSED = Symbol('refused');

/** JSON.parse of a byte range, or REFUSED when the bytes are not (yet) one JSON value. */
function tryParse(buf: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buf.toString('utf8', start, end)) as unknown;
  } catch (err) {
    if (err instanceof SyntaxError) return REFUSED;
    throw err;
  }
}

/** The fast reader of an array of objects (see the top of this file); hands over to JsonArrayReader otherwise. */
export class ObjectArrayReader {
  private phase: 'start' | 'value' | 'element' | 'end' = 'start';
  /** The unfinished element's bytes so far (it starts at 0), and where its next brace search starts. */
  private carry: Buffer | undefined;
  private searchFrom = 0;
  private general: JsonArrayReader | undefined;
  readonly items: unknown[] = [];

  constructor(private readonly each: (element: unknown) => unknown = (e) => e) {}

  feed(chunk: Buffer): void {
    if (this.general) {
      this.general.feed(chunk);
      return;
    }
    const buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    let pos = 0;
    let start = 0;
    let search = this.searchFrom;
    const n = buf.length;
    for (;;) {
      if (this.phase !== 'element') {
        while (pos < n && isSpace(buf[pos] as number)) pos++;
        if (pos === n) return;
      }
      const b = buf[pos] as number;
      if (this.phase === 'start') {
        if (b !== OPEN_ARRAY) return this.handOver(new JsonArrayReader(this.each), buf.subarray(pos));
        this.phase = 'value';
        pos++;
      } else if (this.phase === 'value') {
        if (b === CLOSE_ARRAY && this.items.length === 0) {
          this.phase = 'end';
          pos++;
        } else if (b === OPEN_OBJECT) {
          this.phase = 'element';
          start = pos;
          search = pos + 1;
        } else return this.handOver(JsonArrayReader.continuing(this.each, this.items), buf.subarray(pos));
      } else if (this.phase === 'end') {
        throw new SyntaxError('unexpected data after a JSON array');
      } else {
        const close = buf.indexOf(CLOSE_OBJECT, search);
        let next = close + 1;
        while (close >= 0 && next < n && isSpace(buf[next] as number)) next++;
        if (close < 0 || next === n) {
          if (n - start > FAST_LIMIT) return this.handOver(JsonArrayReader.continuing(this.each, this.items), buf.subarray(start));
          this.carry = buf.subarray(start);
          this.searchFrom = close < 0 ? n - start : close - start;
          return;
        }
        const after = buf[next] as number;
        const value = after === COMMA || after === CLOSE_ARRAY ? tryParse(buf, start, close + 1) : REFUSED;
        if (value === REFUSED) {
          search = close + 1;
          continue;
        }
        this.items.push(this.each(checkedDepth(value, buf, start, close + 1)));
        this.phase = after === COMMA ? 'value' : 'end';
        pos = next + 1;
      }
    }
  }

  private handOver(reader: JsonArrayReader, rest: Buffer): void {
    this.general = reader;
    reader.feed(rest);
  }

  /** The array (or, for a body that is not one, the parsed body). */
  end(): unknown {
    if (this.general) return this.general.end();
    if (this.phase !== 'end') throw new SyntaxError('unexpected end of a JSON array');
    return this.items;
  }
}

/** Reads a JSON body from a stream of byte chunks, element by element (through `each`) when it is an array. */
export async function readJsonArray(chunks: AsyncIterable<Buffer>, each?: (element: unknown) => unknown): Promise<unknown> {
  const reader = new ObjectArrayReader(each);
  for await (const chunk of chunks) reader.feed(chunk);
  return reader.end();
}
